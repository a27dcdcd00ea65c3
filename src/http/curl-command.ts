import {
  bytesOfText,
  type Exchange,
  header,
  type MultipartPart,
  mediaType,
  type RecordedBody,
} from '../validate/exchange.js';
import { envName, type Piece, printfCommand, quoteLiteral, shellWord, withPlaceholders } from './shell-words.js';

// A curl command that sends a recorded request again, so a person can reproduce a failure from a
// report. Credentials are never written: they become environment variables the person sets
// ("Authorization: Bearer $TOKEN"), and any secret given turns into one wherever it appears.
// Everything else is single-quoted, so pasting the command expands nothing in the body.

export interface CurlOptions {
  /** Secret strings (tokens, passwords) to keep out of the command, wherever they appear. */
  secrets?: readonly string[];
  /** Names of further headers that carry credentials. */
  credentialHeaders?: readonly string[];
  /** Bodies larger than this many bytes are left to a file the person supplies (default 4096). */
  maxBodyBytes?: number;
  /** Send through this HTTP proxy (`--proxy`), e.g. print-conformance's own, to be judged again. */
  proxy?: string;
  /**
   * Where the request's body is downloaded from, when the recording holds it whole but it is too
   * large to write in the command: the command fetches it to a file first and sends it only when
   * the download succeeded (`curl -sf -o print-conformance-request-body-N.pdf URL && curl … @…`). Piped instead, a
   * refused download (a wrong token) was sent on as the body.
   */
  bodyUrl?: string;
  /**
   * The environment variable that holds the bearer token `bodyUrl` asks for (a control token): the
   * download sends it from there, so the token is never written in the command, where it would be
   * kept in a shell's history and shown to every user of the machine while it runs.
   */
  bodyUrlToken?: string;
  /** Where a body not held here is, when it is somewhere ("not kept whole in the recording" else). */
  unheldBody?: string;
}

/** Headers of one connection, and those curl works out itself (Host from the URL, the length). */
const LEFT_OUT = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'content-length',
  'host',
]);

const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key']);

/** Parameters of a query or a form body that carry secrets (those redaction knows, and more). */
const SECRET_PARAMS = /((?:^|[?&;])(access_token|refresh_token|client_secret|token|api_key|password)=)([^&#]*)/gi;

type Secrets = { value: string; env: string }[];

function credentialValue(name: string, value: string): Piece[] {
  const lower = name.toLowerCase();
  if (lower === 'authorization') {
    const scheme = /^(\S+)\s+\S/.exec(value)?.[1];
    if (scheme === undefined) return [{ env: 'AUTHORIZATION' }];
    return [`${scheme} `, { env: scheme.toLowerCase() === 'bearer' ? 'TOKEN' : 'CREDENTIALS' }];
  }
  return [{ env: envName(name) }];
}

/** A URL or form body with the values of secret parameters, and the secrets given, as placeholders. */
function paramPieces(text: string, secrets: Secrets): Piece[] {
  const pieces: Piece[] = [];
  let last = 0;
  for (const match of text.matchAll(SECRET_PARAMS)) {
    const [, prefix = '', name = ''] = match;
    pieces.push(...withPlaceholders(text.slice(last, match.index) + prefix, secrets), { env: envName(name) });
    last = match.index + match[0].length;
  }
  pieces.push(...withPlaceholders(text.slice(last), secrets));
  return pieces;
}

/** The whole body, when the recording holds it. */
function heldBytes(body: RecordedBody | undefined): Buffer | undefined {
  if (body?.base64 !== undefined) return Buffer.from(body.base64, 'base64');
  if (body?.text !== undefined) return bytesOfText({ text: body.text, size: body.size });
  return undefined;
}

const FILE_SUFFIX: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'application/json': 'json',
  'application/xml': 'xml',
};

/** An HTTP token (RFC 9110 §5.6.2): what a header name or a method is made of. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * A form field name curl reads as a name alone: it ends at the first "=", and a name holding "@",
 * "<" or ";" could turn the rest into a file reference or a directive. Others are replaced.
 */
function formName(wanted: string | undefined, index: number, notes: string[]): string {
  const fallback = `part${index + 1}`;
  if (wanted === undefined) return fallback;
  if (/^[A-Za-z0-9._[\]-]{1,100}$/.test(wanted)) return wanted;
  notes.push(`part ${index + 1} was named otherwise in the recording (a name curl would read as a directive)`);
  return fallback;
}

/** A media type curl takes as it is after ";type=": type/subtype and nothing else. */
const PLAIN_MEDIA_TYPE = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/;

/** A file name safe on any file system and in a curl form field. */
function fileName(wanted: string | undefined, fallback: string): string {
  return wanted && /^[A-Za-z0-9._-]{1,100}$/.test(wanted) && !wanted.startsWith('.') ? wanted : fallback;
}

function sizeNote(file: string, body: { size: number; sha256?: string }): string {
  // Both come from the recording: only a digest's and a count's own characters are written.
  const digest =
    typeof body.sha256 === 'string' && /^[0-9a-f]{1,128}$/i.test(body.sha256) ? `, sha256 ${body.sha256}` : '';
  const size = Number.isSafeInteger(body.size) ? String(body.size) : 'unknown number of';
  return `${file}: the ${size} bytes sent${digest}`;
}

/** Form fields rebuilding a multipart body the recording holds only the parts of. */
function formFields(parts: readonly MultipartPart[], secrets: Secrets, notes: string[]): string[] {
  const out: string[] = [];
  parts.forEach((part, index) => {
    const name = formName(part.name, index, notes);
    const head = part.headBase64 !== undefined ? Buffer.from(part.headBase64, 'base64') : undefined;
    if (part.filename === undefined && head && head.length >= part.size && !head.includes(0)) {
      out.push('--form-string', shellWord(withPlaceholders(`${name}=${head.toString('utf8')}`, secrets)));
      return;
    }
    const suffix = FILE_SUFFIX[mediaType(part.contentType) ?? ''] ?? 'bin';
    const file = fileName(part.filename, `part${index + 1}.${suffix}`);
    notes.push(sizeNote(file, part));
    let field = `${name}=@${file}`;
    const type = part.contentType?.trim();
    if (type && PLAIN_MEDIA_TYPE.test(type)) field += `;type=${type}`;
    if (part.filename !== undefined && part.filename !== file)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is dropped
      field += `;filename="${part.filename.replace(/["\\\u0000-\u001f\u007f]/g, '')}"`;
    out.push('-F', shellWord([field]));
  });
  return out;
}

/** Whether the text is one a single-quoted shell word carries as it is: no line break or control. */
function fitsOneWord(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  return !/[\u0000-\u001f\u007f-\u009f]/.test(text);
}

interface BodyArguments {
  /** curl's options carrying the body. */
  data: string[];
  /** A command whose output is the body (curl reads it as @-). */
  input?: string;
  /** A command that must succeed before the request is sent: it fetches the body's file. */
  before?: string;
  /** What the person must supply: files named for bodies the recording does not hold. */
  notes: string[];
}

/** How curl is to send the recorded body, if there is one. */
function bodyArguments(
  exchange: Exchange,
  secrets: Secrets,
  maxBodyBytes: number,
  bodyUrl: string | undefined,
  bodyUrlToken: string | undefined,
  unheld: string | undefined,
): BodyArguments {
  const body = exchange.request.body;
  const type = mediaType(header(exchange.request.headers, 'content-type'));
  const held = heldBytes(body);
  const notes: string[] = [];
  if (!body) return { data: [], notes };
  if (held && held.length <= maxBodyBytes) {
    const text = held.toString('utf8');
    const isText = Buffer.from(text, 'utf8').equals(held);
    const form = type === 'application/x-www-form-urlencoded';
    const pieces = isText ? (form ? paramPieces(text, secrets) : withPlaceholders(text, secrets)) : undefined;
    if (pieces && fitsOneWord(text)) {
      // A literal body starting with "@" would be read as a file name by --data-binary.
      const first = pieces[0];
      const option = typeof first !== 'string' || first.startsWith('@') ? '--data-raw' : '--data-binary';
      return { data: [option, shellWord(pieces)], notes };
    }
    return { data: ['--data-binary', '@-'], input: printfCommand(pieces ?? held), notes };
  }
  if (type === 'multipart/form-data' && held === undefined && body.parts && body.parts.length > 0) {
    return { data: formFields(body.parts, secrets, notes), notes };
  }
  if (body.size === 0) {
    // A GET or HEAD that framed no body, as nearly all do, is sent with none: "--data-binary ''"
    // would make curl add a Content-Length and a blank Content-Type it never had.
    const framed =
      header(exchange.request.headers, 'content-length') !== undefined ||
      header(exchange.request.headers, 'transfer-encoding') !== undefined;
    const bodiless = /^(?:GET|HEAD)$/i.test(exchange.request.method) && !framed;
    return { data: bodiless ? [] : ['--data-binary', "''"], notes };
  }
  if (held && bodyUrl !== undefined) {
    const auth =
      bodyUrlToken === undefined ? '' : `-H ${shellWord(['Authorization: Bearer ', { env: bodyUrlToken }])} `;
    if (bodyUrlToken !== undefined) notes.push(`${bodyUrlToken}: the control token, to download the body`);
    // Named for the exchange it came from, not "body.pdf": a file of the reader's own of that
    // name, in the folder the line is run in, is not written over.
    const seq = /\/exchanges\/(\d+)\/request-body$/.exec(bodyUrl)?.[1];
    const file = `print-conformance-request-body${seq ? `-${seq}` : ''}.${FILE_SUFFIX[type ?? ''] ?? 'bin'}`;
    return {
      data: ['--data-binary', `@${file}`],
      before: `curl -sf ${auth}-o ${file} ${shellWord([bodyUrl])}`,
      notes,
    };
  }
  const file = `body.${FILE_SUFFIX[type ?? ''] ?? 'bin'}`;
  notes.push(`${sizeNote(file, body)}${held ? '' : `, ${unheld ?? 'not kept whole in the recording'}`}`);
  return { data: ['--data-binary', `@${file}`], notes };
}

/** The command reproducing the exchange's request, on one line. */
export function curlCommand(exchange: Exchange, options: CurlOptions = {}): string {
  const { request } = exchange;
  const secretList = options.secrets ?? [];
  const secrets: Secrets = secretList.map((value, index) => ({
    value,
    env: secretList.length > 1 ? `SECRET_${index + 1}` : 'SECRET',
  }));
  const credentials = new Set([
    ...CREDENTIAL_HEADERS,
    ...(options.credentialHeaders ?? []).map((n) => n.toLowerCase()),
  ]);
  const { data, input, before, notes } = bodyArguments(
    exchange,
    secrets,
    options.maxBodyBytes ?? 4096,
    options.bodyUrl,
    options.bodyUrlToken,
    options.unheldBody,
  );
  const formBuilt = data[0] === '-F' || data[0] === '--form-string';

  const words = ['curl'];
  if (options.proxy !== undefined) words.push('--proxy', shellWord([options.proxy]));
  const inferred = data.length > 0 ? 'POST' : 'GET';
  if (request.method.toUpperCase() === 'HEAD' && data.length === 0) words.push('--head');
  else if (request.method !== inferred) words.push('-X', quoteLiteral(request.method));
  const url = request.url;
  if (/[[\]{}]/.test(url)) words.push('--globoff');
  if (/\/\.\.?(?:[/?#]|$)/.test(url.replace(/^[a-z]+:\/\/[^/]*/i, ''))) words.push('--path-as-is');
  let odd = 0;
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (LEFT_OUT.has(lower) || (formBuilt && lower === 'content-type')) continue;
    // A name that is no token ("@/home/u/file" reads as a file of headers) or a value holding a
    // line break (a header of its own) would be a directive to curl, not the recorded header.
    if (!TOKEN.test(name) || typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      odd += 1;
      continue;
    }
    if (credentials.has(lower)) {
      words.push('-H', shellWord([`${name}: `, ...credentialValue(name, value)]));
      continue;
    }
    // curl sends a header of no value only when it is written "Name;".
    const pieces = value === '' ? [`${name};`] : withPlaceholders(`${name}: ${value}`, secrets);
    words.push('-H', shellWord(pieces));
    if (lower === 'accept-encoding' && /gzip|deflate|br/i.test(value)) words.push('--compressed');
  }
  // Without a recorded Content-Type, curl would send its own with the body: "Content-Type:" stops it.
  if (data.length > 0 && !formBuilt && header(request.headers, 'content-type') === undefined) {
    words.push('-H', quoteLiteral('Content-Type:'));
  }
  if (odd > 0) notes.push(`${odd} recorded header${odd > 1 ? 's' : ''} left out: not a header curl can send as data`);
  words.push(...data);
  // A URL that is no http(s) URL (a hostile recording's "-K/etc/x") is never read as an option.
  if (!/^https?:\/\//i.test(url)) words.push('--url');
  words.push(shellWord(paramPieces(url, secrets)));
  const piped = input === undefined ? words.join(' ') : `${input} | ${words.join(' ')}`;
  const command = before === undefined ? piped : `${before} && ${piped}`;
  // The notes are a comment: a line break in one would end it and make the rest a command.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  const comment = notes.join('; ').replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
  return notes.length > 0 ? `${command}  # ${comment}` : command;
}
