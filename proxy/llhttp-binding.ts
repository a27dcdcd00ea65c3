import { createRequire } from 'node:module';

// Node's own HTTP/1.1 parser (llhttp, in C), the one node:http runs on, driven directly: the proxy
// reads heads and bodies off raw sockets without node:http's request and response objects, which
// cost more CPU per exchange than judging it does. `_http_common` is the legacy module through
// which node exposes this parser (http-parser-js replaces it there); the proxy checks at start
// that it is present, so a Node.js without it fails with one clear line instead of mid-traffic.

interface ParseError extends Error {
  code?: string;
}

export interface LlhttpParser {
  initialize(type: number, resource: object, maxHeaderSize: number, lenient: number): void;
  execute(data: Buffer): number | ParseError;
  finish(): undefined | ParseError;
  close(): void;
  [callback: number]: unknown;
}

interface HttpCommon {
  HTTPParser: {
    new (): LlhttpParser;
    REQUEST: number;
    RESPONSE: number;
    kOnMessageBegin: number;
    kOnHeaders: number;
    kOnHeadersComplete: number;
    kOnBody: number;
    kOnMessageComplete: number;
  };
  methods: string[];
}

function loadHttpCommon(): HttpCommon {
  let common: Partial<HttpCommon> = {};
  try {
    common = createRequire(import.meta.url)('_http_common') as Partial<HttpCommon>;
  } catch {
    // Checked below: the same message whether the module or the parser in it is missing.
  }
  if (typeof common.HTTPParser !== 'function' || !Array.isArray(common.methods))
    throw new Error(`this Node.js (${process.version}) does not expose its HTTP parser; the proxy needs it`);
  return common as HttpCommon;
}

export const { HTTPParser, methods } = loadHttpCommon();
