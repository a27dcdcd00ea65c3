import type { OutgoingAnswer } from '../../src/reference/dialect.js';
import { XSI_NAMESPACE } from '../../src/validate/xml.js';
import { type Mutant, onResources, rewrites, XML_DECLARATION } from './mutant-helpers.js';

// Conformant services as two more stacks write them, down to the methods the interface does not
// name: each answers HEAD and OPTIONS itself, refuses PUT, DELETE and GET on an upload URL its own
// way, and writes XML and JSON as its serialiser does. The suite, validate and the proxy must find
// nothing wrong with either.

/** The reference's XML written compact, with `declaration`, and the xsi namespace declared on the nil Tax. */
function compactXml(answer: OutgoingAnswer, declaration: string, contentType: string): OutgoingAnswer {
  const body = answer.body
    .replace(XML_DECLARATION, declaration)
    .replace(/ xmlns:xsd="[^"]*" xmlns:xsi="[^"]*"/, '')
    .replace(/<Tax xsi:nil="true" \/>/, `<Tax xmlns:xsi="${XSI_NAMESPACE}" xsi:nil="true"/>`)
    .replace(/>\s*\n\s*</g, '><');
  return { ...answer, headers: { ...answer.headers, 'content-type': contentType }, body };
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortedKeys((value as Record<string, unknown>)[key])]),
  );
}

const isResource = (answer: OutgoingAnswer) => answer.endpoint === 'checkout' || answer.endpoint === 'upload';

/** HEAD and OPTIONS as a framework answers them for a route of GET and POST, before the handler. */
function frameworkMethods(allow: string, refuse: (answer: OutgoingAnswer) => OutgoingAnswer) {
  return (answer: OutgoingAnswer): OutgoingAnswer => {
    if (!isResource(answer)) return answer;
    const { method, endpoint } = answer;
    if (endpoint === 'checkout' && method === 'HEAD')
      return { ...answer, status: 200, body: '', headers: { 'content-type': answer.headers['content-type'] ?? '' } };
    if (endpoint === 'checkout' && method === 'OPTIONS')
      return { ...answer, status: 200, body: '', headers: { allow, 'content-type': 'text/html; charset=utf-8' } };
    if (['PUT', 'DELETE'].includes(method) || (endpoint === 'upload' && method === 'GET')) return refuse(answer);
    return answer;
  };
}

// Spring Boot 3 with jackson-dataformat-xml: Woodstox writes a single-quoted declaration and no
// indentation, WRITE_NULLS_AS_XSI_NIL declares xsi on the nil element, Spring writes
// application/xml;charset=UTF-8 and a bare application/json; Spring Security forbids caching; a
// method the route does not map is a ProblemDetail.

function springProblem(answer: OutgoingAnswer): OutgoingAnswer {
  const body = JSON.stringify({
    type: 'about:blank',
    title: 'Method Not Allowed',
    status: 405,
    detail: `Method '${answer.method}' is not supported.`,
    instance: answer.path,
  });
  const allow = answer.endpoint === 'upload' ? 'POST' : 'GET,HEAD,POST,OPTIONS';
  return { ...answer, status: 405, body, headers: { 'content-type': 'application/problem+json', allow } };
}

const SPRING_SECURITY_CACHING = {
  'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
  pragma: 'no-cache',
  expires: '0',
  vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
};

const springBoot3 = rewrites(
  onResources('xml', (a) => compactXml(a, "<?xml version='1.0' encoding='UTF-8'?>", 'application/xml;charset=UTF-8')),
  onResources('json', (a) => ({
    ...a,
    headers: { ...a.headers, 'content-type': 'application/json' },
    body: JSON.stringify(JSON.parse(a.body)),
  })),
  (a) => (isResource(a) ? { ...a, headers: { ...a.headers, ...SPRING_SECURITY_CACHING } } : a),
  frameworkMethods('GET,HEAD,POST,OPTIONS', springProblem),
);

// Flask 3 with lxml: etree.tostring(xml_declaration=True, encoding='UTF-8') writes a single-quoted
// declaration and a line end after it; jsonify writes compact JSON with its keys sorted; Werkzeug
// answers HEAD and OPTIONS itself and a method the route lacks with its HTML page.

function werkzeugMethodNotAllowed(answer: OutgoingAnswer): OutgoingAnswer {
  const body =
    '<!doctype html>\n<html lang=en>\n<title>405 Method Not Allowed</title>\n<h1>Method Not Allowed</h1>\n<p>The method is not allowed for the requested URL.</p>\n';
  const allow = answer.endpoint === 'upload' ? 'OPTIONS, POST' : 'GET, HEAD, OPTIONS, POST';
  return { ...answer, status: 405, body, headers: { 'content-type': 'text/html; charset=utf-8', allow } };
}

const flask3 = rewrites(
  onResources('xml', (a) => {
    const compact = compactXml(a, "<?xml version='1.0' encoding='UTF-8'?>", 'application/xml; charset=utf-8');
    return { ...compact, body: compact.body.replace(/^(<\?xml[^>]*\?>)/, '$1\n') };
  }),
  onResources('json', (a) => ({
    ...a,
    headers: { ...a.headers, 'content-type': 'application/json' },
    body: JSON.stringify(sortedKeys(JSON.parse(a.body))),
  })),
  frameworkMethods('GET, HEAD, OPTIONS, POST', werkzeugMethodNotAllowed),
);

export const WRITER_DIALECTS: Mutant[] = [
  {
    name: 'a Spring Boot 3 dialect: Jackson XML, ProblemDetail 405s, HEAD and OPTIONS answered by Spring, no-store',
    dialect: { rewrite: springBoot3 },
    fails: [],
  },
  {
    name: "a Flask 3 dialect: lxml's single-quoted declaration, sorted compact JSON, Werkzeug's HTML 405s",
    dialect: { rewrite: flask3 },
    fails: [],
  },
];
