import { documentedMembers } from '../contract/documented-members.js';
import type { ExchangeKind } from '../contract/exchange-facts.js';
import type { SchemaName } from '../contract/schemas.js';
import type { CoverageData, MemberCounts, OperationCoverage } from '../findings/types.js';
import type { Document } from './document.js';
import { type Exchange, header, mediaType } from './exchange.js';
import type { ReadBodies } from './format.js';
import { KeptWith } from './kept-with.js';
import { displayPath, modelOf } from './model.js';
import { isXsiNil } from './xml.js';

// Coverage: which parts of the interface a run's exchanges exercised, per operation: formats,
// documented members present, absent or nil in requests and accepted answers, Content-Types sent
// and answered, status codes. A fact of each exchange, summed like evidence, merged like tallies.

type Operation = keyof CoverageData;

const SCHEMAS: Record<Operation, { request?: SchemaName; response: SchemaName }> = {
  'POST checkout': { request: 'checkout-request', response: 'checkout' },
  'GET checkout': { response: 'checkout' },
  'POST files': { response: 'upload-result' },
};

function emptyOperation(): OperationCoverage {
  return { exchanges: {}, request: {}, response: {}, sent: {}, answered: {}, statuses: {} };
}

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by;
};

/** A documented member as coverage reads it, worked out once per resource and format. */
interface MemberPlan {
  /** The pointer's keys, from the root. */
  keys: readonly string[];
  /** The member as the format writes it (the table's key). */
  name: string;
  /** An XML-only nil element (Tax): under the root, not in the model. */
  nilOnly: boolean;
}

/** Plans by resource, then format: found without a key string made for each document. */
const plans = new Map<SchemaName, Partial<Record<Document['format'], readonly MemberPlan[]>>>();

function membersPlan(schema: SchemaName, format: Document['format']): readonly MemberPlan[] {
  let byFormat = plans.get(schema);
  if (!byFormat) {
    byFormat = {};
    plans.set(schema, byFormat);
  }
  let plan = byFormat[format];
  if (!plan) {
    const members = documentedMembers(schema, format);
    const modelled = format === 'xml' ? documentedMembers(schema, 'json').length : members.length;
    plan = members.map((pointer, index) => ({
      keys: pointer.split('/').slice(1),
      name: displayPath(pointer, format),
      nilOnly: index >= modelled,
    }));
    byFormat[format] = plan;
  }
  return plan;
}

/** Where a model holds nothing at these keys, a nil there, or a value. */
function stateAt(model: unknown, keys: readonly string[]): keyof MemberCounts {
  let here: unknown = model;
  for (const key of keys) {
    if (here === null || typeof here !== 'object' || Array.isArray(here)) return 'absent';
    here = (here as Record<string, unknown>)[key];
  }
  if (here === undefined) return 'absent';
  return here === null ? 'nil' : 'present';
}

/** The nil elements XML writes apart (Tax) are found under the root, not in the model. */
function xmlOnlyState(document: Extract<Document, { format: 'xml' }>, name: string): keyof MemberCounts {
  const element = document.root.children.find((child) => child.local === name);
  if (!element) return 'absent';
  return isXsiNil(element) ? 'nil' : 'present';
}

/**
 * Each documented member's state in a document, in the order of its plan: read once per document
 * and resource (documents are never changed once read, and a client sends the same set-up again).
 */
const statesRead = new KeptWith<Document, Partial<Record<SchemaName, readonly (keyof MemberCounts)[]>>>(
  'member states',
);

function memberStates(document: Document, schema: SchemaName): readonly (keyof MemberCounts)[] {
  let bySchema = statesRead.get(document);
  if (!bySchema) {
    bySchema = {};
    statesRead.set(document, bySchema);
  }
  let states = bySchema[schema];
  if (!states) {
    const model = modelOf(document, schema);
    states = membersPlan(schema, document.format).map((member) =>
      member.nilOnly && document.format === 'xml'
        ? xmlOnlyState(document, member.name.slice(1))
        : stateAt(model, member.keys),
    );
    bySchema[schema] = states;
  }
  return states;
}

/**
 * A table's counts in the order of the plan that fills it, so that each exchange adds to them by
 * position rather than looking each member up by name. Rows are made for the whole plan at once,
 * in its order: the order in which they were made, one by one, at the table's first document.
 */
const rowsOfTable = new WeakMap<Record<string, MemberCounts>, { plan: readonly MemberPlan[]; rows: MemberCounts[] }>();

function rowsOf(table: Record<string, MemberCounts>, plan: readonly MemberPlan[]): MemberCounts[] {
  const known = rowsOfTable.get(table);
  if (known?.plan === plan) return known.rows;
  const rows = plan.map((member) => {
    let counts = table[member.name];
    if (!counts) {
      counts = { present: 0, absent: 0, nil: 0 };
      table[member.name] = counts;
    }
    return counts;
  });
  rowsOfTable.set(table, { plan, rows });
  return rows;
}

function countMembers(into: OperationCoverage['request'], document: Document, schema: SchemaName): void {
  const table = into[document.format] ?? {};
  into[document.format] = table;
  const states = memberStates(document, schema);
  const rows = rowsOf(table, membersPlan(schema, document.format));
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index] as MemberCounts;
    // Each count by its own name: one access by a name that varies was the loop's whole cost.
    const state = states[index];
    if (state === 'present') row.present += 1;
    else if (state === 'absent') row.absent += 1;
    else row.nil += 1;
  }
}

/** Statuses as the table's keys, made once each: a key made anew is a new string to hash. */
const statusTexts = new Map<number, string>();

function statusText(status: number): string {
  let text = statusTexts.get(status);
  if (text === undefined) {
    text = String(status);
    if (statusTexts.size >= 1024) statusTexts.clear();
    statusTexts.set(status, text);
  }
  return text;
}

/** Adds one judged exchange of the interface to the coverage. */
export function recordCoverage(
  coverage: CoverageData,
  kind: ExchangeKind,
  exchange: Exchange,
  read: ReadBodies | undefined,
): void {
  if (kind === 'other') return;
  const operation = coverage[kind] ?? emptyOperation();
  coverage[kind] = operation;
  const format = read?.request?.format ?? read?.response?.format ?? 'none';
  bump(operation.exchanges, format);
  const sent =
    exchange.request.body && exchange.request.body.size > 0
      ? header(exchange.request.headers, 'content-type')
      : undefined;
  bump(operation.sent, mediaType(sent) ?? '(none)');
  const { response } = exchange;
  bump(operation.statuses, response ? statusText(response.status) : 'no answer');
  if (response) bump(operation.answered, mediaType(header(response.headers, 'content-type')) ?? '(none)');
  const schemas = SCHEMAS[kind];
  if (schemas.request && read?.request) countMembers(operation.request, read.request, schemas.request);
  if (response && response.status >= 200 && response.status < 300 && read?.response)
    countMembers(operation.response, read.response, schemas.response);
}

function addCounts(into: Record<string, number>, from: Record<string, number>): void {
  for (const [key, count] of Object.entries(from)) bump(into, key, count);
}

function addMembers(into: OperationCoverage['request'], from: OperationCoverage['request']): void {
  for (const [format, members] of Object.entries(from) as ['json' | 'xml', Record<string, MemberCounts>][]) {
    const table = into[format] ?? {};
    into[format] = table;
    for (const [name, counts] of Object.entries(members)) {
      const target = table[name] ?? { present: 0, absent: 0, nil: 0 };
      table[name] = target;
      target.present += counts.present;
      target.absent += counts.absent;
      target.nil += counts.nil;
    }
  }
}

/** Coverage of disjoint parts of one run (threads, shards), as if one had seen it all. */
export function mergeCoverage(into: CoverageData, from: CoverageData | undefined): void {
  for (const [kind, part] of Object.entries(from ?? {}) as [Operation, OperationCoverage][]) {
    const target = into[kind] ?? emptyOperation();
    into[kind] = target;
    addCounts(target.exchanges, part.exchanges);
    addMembers(target.request, part.request);
    addMembers(target.response, part.response);
    addCounts(target.sent, part.sent);
    addCounts(target.answered, part.answered);
    addCounts(target.statuses, part.statuses);
  }
}
