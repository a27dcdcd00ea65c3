import { documentedMembers } from '../contract/documented-members.js';
import { type SchemaName, xmlNilElementsOf } from '../contract/schemas.js';
import type { AnswerDifference } from '../findings/replay.js';
import { type Document, formatOfMediaType, sniffFormat } from '../validate/document.js';
import { bodyText, type Exchange, header, mediaType, type RecordedResponse } from '../validate/exchange.js';
import { displayPath, memberOf, modelOf } from '../validate/model.js';
import { responseDocument } from '../validate/traffic.js';
import { isXsiNil } from '../validate/xml.js';
import type { OrderAnswer } from './order-answer.js';

// Where a new answer differs from the recorded one in what the interface cares about: the status
// class, the format, and each documented member's presence and value. What must differ between
// two orders or two services (codes, URLs, PaymentUrl, dates) is never compared.

export type AnswerKind = 'checkout' | 'upload' | 'order';

const SCHEMA_OF: Record<Exclude<AnswerKind, 'order'>, SchemaName> = { checkout: 'checkout', upload: 'upload-result' };

/** Members whose values belong to one payment: two set-ups never share them. */
const VALUES_THAT_DIFFER = new Set(['/paymentUrl']);
/** Compared as upload.file-type compares them: case does not count. */
const CASE_FREE = new Set(['/fileType']);

function formatOf(response: RecordedResponse): string {
  const contentType = header(response.headers, 'content-type');
  const named = formatOfMediaType(mediaType(contentType));
  if (named) return named.toUpperCase();
  const text = bodyText(response.body, contentType);
  const sniffed = text === undefined ? undefined : sniffFormat(text);
  if (sniffed) return sniffed.toUpperCase();
  if (!response.body || response.body.size === 0) return 'no body';
  return mediaType(contentType) ?? 'a body of no named type';
}

/** The pointers of the documented members that hold values (not objects). */
function leavesOf(schema: SchemaName, format: Document['format']): string[] {
  const members = documentedMembers(schema, format);
  return members.filter((pointer) => !members.some((other) => other.startsWith(`${pointer}/`)));
}

/** A member's value as text, with the JSON type it had ("string" for XML, which has no other). */
interface Value {
  text: string;
  type: string;
}

/** A member's value, undefined when absent; "nil" for an XML nil or a JSON null. */
function valueAt(document: Document, schema: SchemaName, pointer: string): Value | undefined {
  const name = pointer.slice(1);
  if (document.format === 'xml' && xmlNilElementsOf(schema).some((element) => element.toLowerCase() === name)) {
    const element = document.root.children.find((child) => child.local.toLowerCase() === name);
    if (!element) return undefined;
    return isXsiNil(element) ? { text: 'nil', type: 'null' } : { text: element.text, type: 'string' };
  }
  let here: unknown = modelOf(document, schema);
  for (const key of pointer.split('/').filter(Boolean)) here = memberOf(here, key);
  if (here === undefined) return undefined;
  if (here === null) return { text: 'nil', type: 'null' };
  return typeof here === 'string' ? { text: here, type: 'string' } : { text: JSON.stringify(here), type: typeof here };
}

function sameValue(pointer: string, a: Value, b: Value): boolean {
  if (VALUES_THAT_DIFFER.has(pointer)) return true;
  // A number become a string (12.5 and "12.5") reads the same as text, but breaks a client that computes with it.
  if (a.type !== b.type) return false;
  if (CASE_FREE.has(pointer)) return a.text.toLowerCase() === b.text.toLowerCase();
  return a.text === b.text;
}

/** A value as a difference shows it: a string quoted when the other side's value was of another type. */
function shown(value: Value, other: Value | undefined): string {
  return value.type === 'string' && other !== undefined && other.type !== 'string' && other.type !== 'null'
    ? JSON.stringify(value.text)
    : value.text;
}

function memberDifferences(recorded: Document, replayed: Document, schema: SchemaName): AnswerDifference[] {
  const out: AnswerDifference[] = [];
  for (const pointer of leavesOf(schema, recorded.format)) {
    const before = valueAt(recorded, schema, pointer);
    const now = valueAt(replayed, schema, pointer);
    if (before === undefined && now === undefined) continue;
    if (before !== undefined && now !== undefined && sameValue(pointer, before, now)) continue;
    const member = displayPath(pointer, recorded.format);
    out.push({
      member,
      ...(before === undefined ? {} : { recorded: shown(before, now) }),
      ...(now === undefined ? {} : { replayed: shown(now, before) }),
    });
  }
  return out;
}

function orderDifferences(recorded: OrderAnswer | undefined, replayed: OrderAnswer | undefined): AnswerDifference[] {
  if (!recorded) return [];
  const out: AnswerDifference[] = [];
  for (const place of recorded.urls.keys())
    if (!replayed?.urls.has(place)) out.push({ member: place, recorded: 'a URL' });
  return out;
}

const statusClass = (status: number) => Math.floor(status / 100);

/**
 * The differences of the new answer from the recorded one. `orders`: for an order answer, what
 * the recorded and the new answer gave (their URLs are compared by place).
 */
export function answerDifferences(
  recorded: Exchange,
  replayed: Exchange,
  kind: AnswerKind,
  orders?: { recorded?: OrderAnswer; replayed?: OrderAnswer },
): AnswerDifference[] {
  const before = recorded.response;
  const now = replayed.response;
  if (!before && !now) return [];
  if (!before || !now)
    return [
      {
        member: 'answer',
        recorded: before ? String(before.status) : `none (${recorded.error ?? 'no response'})`,
        replayed: now ? String(now.status) : `none (${replayed.error ?? 'no response'})`,
      },
    ];
  const out: AnswerDifference[] = [];
  if (statusClass(before.status) !== statusClass(now.status))
    out.push({ member: 'status', recorded: String(before.status), replayed: String(now.status) });
  const [formatBefore, formatNow] = [formatOf(before), formatOf(now)];
  if (formatBefore !== formatNow) out.push({ member: 'format', recorded: formatBefore, replayed: formatNow });
  if (out.length > 0 || statusClass(now.status) !== 2) return out;
  if (kind === 'order') return orderDifferences(orders?.recorded, orders?.replayed);
  const [documentBefore, documentNow] = [responseDocument(before), responseDocument(now)];
  if (documentBefore && !documentNow) return [{ member: 'body', recorded: 'a readable document', replayed: 'none' }];
  if (!documentBefore || !documentNow) return out;
  return memberDifferences(documentBefore, documentNow, SCHEMA_OF[kind]);
}
