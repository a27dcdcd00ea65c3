// Preloaded (node --require) to play a Node.js that no longer has the legacy _http_common module.
const Module = require('node:module');
const load = Module._load;
Module._load = function hideHttpCommon(request, ...rest) {
  if (request === '_http_common' || request === 'node:_http_common') {
    const error = new Error(`Cannot find module '${request}'`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return load.call(this, request, ...rest);
};
