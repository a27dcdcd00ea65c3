import { ruleById } from '../contract/rules.js';
import { escapeXml as escapeMarkup } from '../contract/xml-writer.js';
import type { ClientTestVerdict, RuleResult, RunResult } from '../findings/types.js';
import { failureHeadline, failureText, OBSERVED } from './failure-text.js';
import { xmlCarriable } from './terminal-text.js';
import { writeFileWhole } from './write-file.js';

// junit.xml, the same shape for run and validate: one test case per rule (its formats inside it),
// classname the rule's area. A verdict that fails the run is a <failure>; an untested, skipped or
// observed rule is <skipped message>; a should rule broken without --strict passes with a warning in its
// output, as the exit code counts it.

/** Text as junit.xml carries it: markup escaped, and what XML 1.0 cannot hold (raw control characters) as visible escapes. */
const escapeXml = (text: string) => escapeMarkup(xmlCarriable(text));

function formatsLine(rule: RuleResult): string {
  return rule.formats.map((f) => `${f.format}: ${f.status} (${f.evidence} exchanges)`).join(', ');
}

/** How to run a generated run's requests again: every report of one names its seed. */
function repeatLine(result: RunResult): string | undefined {
  const { generated } = result;
  return generated && `generated run: repeat it with --generate ${generated.asked} --seed ${generated.seed}`;
}

function testCase(rule: RuleResult, repeat: string | undefined): { xml: string; failed: boolean; skipped: boolean } {
  // An untested rule is a <skipped> (its message starts "untested:") even when it fails the run.
  const area = ruleById(rule.id).area;
  const open = `    <testcase classname="${area}" name="${escapeXml(rule.id)}" time="0">`;
  const out = (text: string) => `<system-out>${escapeXml(text)}</system-out>`;
  if (rule.status === 'untested' || rule.status === 'skipped') {
    const message = `${rule.status}: ${rule.reason ?? ''}`;
    return { xml: `${open}<skipped message="${escapeXml(message)}"/></testcase>`, failed: false, skipped: true };
  }
  // An observe rule records what the service does; it is never a test that passed.
  if (rule.status === 'observed') {
    const message = `observed: ${OBSERVED}; ${formatsLine(rule)}`;
    return { xml: `${open}<skipped message="${escapeXml(message)}"/></testcase>`, failed: false, skipped: true };
  }
  if (rule.failsRun) {
    const body = `${failureText(rule)}${rule.formats.length ? `\n${formatsLine(rule)}` : ''}${repeat ? `\n${repeat}` : ''}`;
    const failure = `<failure message="${escapeXml(failureHeadline(rule))}" type="${rule.severity}">${escapeXml(body)}</failure>`;
    return { xml: `${open}${failure}</testcase>`, failed: true, skipped: false };
  }
  const warning = rule.status === 'failed' ? `warning: ${failureText(rule)}\n` : '';
  return {
    xml: `${open}${out(`${warning}${rule.status}; ${formatsLine(rule)}`)}</testcase>`,
    failed: false,
    skipped: false,
  };
}

/** One test case per client test of the traffic: failed when its exchanges broke a rule that fails the run. */
function clientTestCase(test: ClientTestVerdict): string {
  // A test named by class and method ("ShopTest::testCheckout", as PHPUnit and JUnit know it) goes
  // under its class, so that two classes' methods of one name stay apart in a CI's test view.
  const keyed = /^(.+)::([^:]+)$/.exec(test.name);
  const [classname, name] = keyed ? [keyed[1] as string, keyed[2] as string] : ['client-tests', test.name];
  const open = `    <testcase classname="${escapeXml(classname)}" name="${escapeXml(name)}" time="0">`;
  const lines = (failures: ClientTestVerdict['failed']) =>
    failures.map((f) => `${f.rule} (${f.severity}, ${f.count}×): ${f.messages.join('; ')}`).join('\n');
  const counted = `${test.exchanges} exchanges, ${test.judged} of the interface`;
  if (!test.passed) {
    const message = `broke ${test.failed.map((f) => f.rule).join(', ')}`;
    return `${open}<failure message="${escapeXml(message)}" type="must">${escapeXml(`${lines(test.failed)}\n${counted}`)}</failure></testcase>`;
  }
  // A test that sent nothing of the interface showed nothing: skipped, never passed.
  if (test.judged === 0)
    return `${open}<skipped message="${escapeXml(`no exchange of the interface (${counted})`)}"/></testcase>`;
  const warnings = test.warnings.length > 0 ? `warnings:\n${lines(test.warnings)}\n` : '';
  return `${open}<system-out>${escapeXml(`${warnings}${counted}`)}</system-out></testcase>`;
}

function clientTestsSuite(result: RunResult): string[] {
  const tests = result.clientTests ?? [];
  if (tests.length === 0) return [];
  const failures = tests.filter((test) => !test.passed).length;
  const skipped = tests.filter((test) => test.passed && test.judged === 0).length;
  return [
    `  <testsuite name="client tests" timestamp="${result.startedAt}" tests="${tests.length}" failures="${failures}" errors="0" skipped="${skipped}" time="0">`,
    ...tests.map(clientTestCase),
    '  </testsuite>',
  ];
}

interface ClientCase {
  xml: string;
  failed: boolean;
  skipped: boolean;
}

/**
 * A suite per client team (--clients-by): a case for the client as a whole, and one per rule its
 * exchanges broke, so that a CI's test view names the team beside the rule.
 */
function clientSuites(result: RunResult): { xml: string[]; cases: ClientCase[] } {
  const xml: string[] = [];
  const all: ClientCase[] = [];
  for (const client of result.clients?.clients ?? []) {
    const classname = escapeXml(`client.${client.client}`);
    const counted = `${client.exchanges} exchanges, ${client.judged} of the interface`;
    const open = (name: string) => `    <testcase classname="${classname}" name="${escapeXml(name)}" time="0">`;
    const whole: ClientCase = !client.passed
      ? {
          xml: `${open('conformance')}<failure message="${escapeXml(`broke ${client.failed.map((f) => f.rule).join(', ')}`)}" type="must">${escapeXml(counted)}</failure></testcase>`,
          failed: true,
          skipped: false,
        }
      : client.judged === 0
        ? {
            xml: `${open('conformance')}<skipped message="${escapeXml(`no exchange of the interface (${counted})`)}"/></testcase>`,
            failed: false,
            skipped: true,
          }
        : {
            xml: `${open('conformance')}<system-out>${escapeXml(counted)}</system-out></testcase>`,
            failed: false,
            skipped: false,
          };
    const cases = [
      whole,
      ...client.failed.map((f) => ({
        xml: `${open(f.rule)}<failure message="${escapeXml(`${f.rule} broken ${f.count}×`)}" type="${f.severity}">${escapeXml(f.messages.join('\n'))}</failure></testcase>`,
        failed: true,
        skipped: false,
      })),
      ...client.warnings.map((f) => ({
        xml: `${open(f.rule)}<system-out>${escapeXml(`warning (${f.severity}), ${f.count}×: ${f.messages.join('; ')}`)}</system-out></testcase>`,
        failed: false,
        skipped: false,
      })),
    ];
    all.push(...cases);
    xml.push(
      `  <testsuite name="${escapeXml(`client ${client.client}`)}" timestamp="${result.startedAt}" tests="${cases.length}" failures="${cases.filter((c) => c.failed).length}" errors="0" skipped="${cases.filter((c) => c.skipped).length}" time="0">`,
      ...cases.map((c) => c.xml),
      '  </testsuite>',
    );
  }
  return { xml, cases: all };
}

export function junitReport(result: RunResult): string {
  const repeat = repeatLine(result);
  const cases = result.rules.map((rule) => testCase(rule, repeat));
  const failures = cases.filter((c) => c.failed).length;
  const skipped = cases.filter((c) => c.skipped).length;
  const seconds = (result.durationMs / 1000).toFixed(3);
  const counts = `tests="${cases.length}" failures="${failures}" errors="0"`;
  const clientTests = result.clientTests ?? [];
  const clients = clientSuites(result);
  const allCounts = `tests="${cases.length + clientTests.length + clients.cases.length}" failures="${failures + clientTests.filter((t) => !t.passed).length + clients.cases.filter((c) => c.failed).length}" errors="0"`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="print-conformance" ${allCounts} time="${seconds}">`,
    `  <testsuite name="${escapeXml(result.target)}" timestamp="${result.startedAt}" ${counts} skipped="${skipped}" time="${seconds}">`,
    ...(result.recording
      ? [
          '    <properties>',
          `      <property name="recording" value="${escapeXml(`incomplete: ${result.recording.problem}`)}"/>`,
          '    </properties>',
        ]
      : []),
    ...(result.generated
      ? [
          '    <properties>',
          `      <property name="seed" value="${result.generated.seed}"/>`,
          `      <property name="generated" value="${result.generated.ran} of ${result.generated.asked}"/>`,
          '    </properties>',
        ]
      : []),
    ...cases.map((c) => c.xml),
    '  </testsuite>',
    ...clientTestsSuite(result),
    ...clients.xml,
    '</testsuites>',
    '',
  ].join('\n');
}

export function writeJunitReport(result: RunResult, file: string): void {
  writeFileWhole(file, junitReport(result));
}
