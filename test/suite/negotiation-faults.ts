import { STATUS_CODES } from 'node:http';
import type { OutgoingAnswer } from '../../src/reference/dialect.js';
import { type Mutant, ok } from './mutant-helpers.js';

// Faults real stacks make in negotiation: Accept read as one bare type, refusals written as plain
// text, a content coding named but not applied. Each is caught by reading Accept, bodies and
// Content-Encoding as clients do (the core, in run, proxy and validate alike), and by nothing else.

const interfaceAnswer = (answer: OutgoingAnswer) => answer.endpoint === 'checkout' || answer.endpoint === 'upload';

/** Express's res.sendStatus(status): the status text as text/plain, whatever was asked for. */
function sendStatus(answer: OutgoingAnswer): OutgoingAnswer {
  if (!interfaceAnswer(answer) || answer.status < 400) return answer;
  return {
    ...answer,
    headers: { ...answer.headers, 'content-type': 'text/plain; charset=utf-8' },
    body: STATUS_CODES[answer.status] ?? String(answer.status),
  };
}

/**
 * A Content-Encoding header replayed from a cached answer onto a body sent as it is (a PHP output
 * handler that kept the header of the compressed copy): a client that asked for gzip cannot read it.
 */
function gzipNamedNotApplied(answer: OutgoingAnswer): OutgoingAnswer {
  if (answer.endpoint !== 'checkout' || !ok(answer) || !/\bgzip\b/.test(answer.acceptEncoding ?? '')) return answer;
  return { ...answer, headers: { ...answer.headers, 'content-encoding': 'gzip' } };
}

/** Compressed as asked, the way ASP.NET Core's ResponseCompression (br first) and Go's gzip handlers do. */
function compressedAsAsked(answer: OutgoingAnswer): OutgoingAnswer {
  const asked = answer.acceptEncoding ?? '';
  if (!interfaceAnswer(answer) || asked === '') return answer;
  const coding = answer.endpoint === 'upload' ? 'deflate' : answer.format === 'json' ? 'br' : 'gzip';
  return asked.includes(coding) ? { ...answer, coding } : answer;
}

export const NEGOTIATION_MUTANTS: Mutant[] = [
  {
    // MvcOptions.RespectBrowserAcceptHeader is false by default: with */* in Accept the first
    // output formatter (JSON) answers.
    name: 'ASP.NET Core answering JSON to any Accept holding */* (RespectBrowserAcceptHeader off)',
    dialect: { answerFormat: (request) => (/\*\/\*/.test(request.headers.accept ?? '') ? 'json' : undefined) },
    fails: ['format.xml'],
  },
  {
    name: 'Go comparing Accept whole: r.Header.Get("Accept") == "application/xml"',
    dialect: { answerFormat: (request) => (request.headers.accept === 'application/xml' ? 'xml' : 'json') },
    fails: ['format.xml'],
  },
  {
    name: "Express refusals written by res.sendStatus: 'Bad Request' as text/plain",
    dialect: { rewrite: sendStatus },
    fails: ['format.json', 'format.xml'],
  },
  {
    name: 'Content-Encoding: gzip named on checkout answers sent uncompressed',
    dialect: { rewrite: gzipNamedNotApplied },
    fails: ['format.well-formed'],
  },
];

export const NEGOTIATION_DIALECTS: Mutant[] = [
  {
    name: 'answers compressed as asked: br, gzip and deflate (ASP.NET Core ResponseCompression, Go gzip handlers)',
    dialect: { rewrite: compressedAsAsked },
    fails: [],
  },
];
