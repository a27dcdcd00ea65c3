import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { runtimeRefusal } from '../../src/cli/runtime-check.js';

// The CLI refuses a Node.js whose HTTP parser has a known request-smuggling flaw (the proxy reads
// HTTP with it), and one older than package.json's engines admit.

describe('the Node.js the CLI runs on', () => {
  it('refuses 20.x before 20.19.2 (CVE-2025-23167) with the reason and the fix', () => {
    for (const version of ['20.19.0', '20.19.1', 'v20.19.1', '20.12.0', '20.0.0']) {
      const refusal = runtimeRefusal(version);
      expect(refusal, version).toMatch(/known HTTP parser flaw \(CVE-2025-23167: .*\), fixed in 20\.19\.2/);
      expect(refusal).toMatch(/use Node\.js 20\.19\.2 or later on the 20 line, or 22 or later/);
    }
  });

  it('refuses 21.x before 21.7.2 (CVE-2024-27982), and releases older than 20', () => {
    expect(runtimeRefusal('21.7.1')).toMatch(/CVE-2024-27982/);
    expect(runtimeRefusal('18.20.4')).toMatch(/older than this tool supports/);
  });

  it('runs on releases without a known parser flaw', () => {
    for (const version of ['20.19.2', '20.20.2', '21.7.2', '22.0.0', '22.22.2', '23.11.1', '24.14.1', '26.0.0'])
      expect(runtimeRefusal(version), version).toBeUndefined();
  });

  it('says nothing of a version it cannot read', () => {
    expect(runtimeRefusal('unknown')).toBeUndefined();
  });

  it("agrees with package.json's engines at the bounds", async () => {
    const { default: manifest } = await import('../../package.json', { with: { type: 'json' } });
    expect(manifest.engines.node).toBe('^20.19.2 || >=22');
  });

  it('lets the CLI start on this Node.js', () => {
    expect(
      execFileSync(process.execPath, ['bin/print-conformance.js', '--version'], { encoding: 'utf8' }).trim(),
    ).toMatch(/^\d+\.\d+\.\d+/);
  });
});
