import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RULES, selectRules } from '../../src/contract/rules.js';
import { SHARED } from '../helpers/exchanges.js';

// The catalog's IDs and severities are a public interface: they must match the published catalog.
function publishedRules(): Map<string, string> {
  const text = readFileSync(join(SHARED, 'spec', 'RULES.md'), 'utf8');
  const rules = new Map<string, string>();
  for (const line of text.split('\n')) {
    const withSeverity = /^\| `([a-z0-9.-]+)` \| (must|should|observe) \|/.exec(line);
    const observation = /^\| `(observe\.[a-z0-9.-]+)` \|/.exec(line);
    if (withSeverity) rules.set(withSeverity[1] as string, withSeverity[2] as string);
    else if (observation) rules.set(observation[1] as string, 'observe');
  }
  return rules;
}

describe('the rule catalog', () => {
  it('has every published ID with its published severity, and nothing else', () => {
    const published = publishedRules();
    expect(published.size).toBeGreaterThan(30);
    expect(new Map(RULES.map((rule) => [rule.id, rule.severity]))).toEqual(published);
  });

  it('gives every rule a seed section, a title and a description', () => {
    for (const rule of RULES) {
      expect(rule.seed, rule.id).toMatch(/§/);
      expect(rule.title.length, rule.id).toBeGreaterThan(10);
      expect(rule.description.length, rule.id).toBeGreaterThan(30);
    }
  });

  it('selects by ID and by prefix, and names what matches nothing', () => {
    expect([...selectRules(['upload.']).selected].every((id) => id.startsWith('upload.'))).toBe(true);
    expect(selectRules(['upload']).selected.size).toBe(selectRules(['upload.']).selected.size);
    expect(selectRules([], ['checkout', 'upload', 'client', 'format', 'http', 'observe']).selected.size).toBe(0);
    expect(selectRules(['checkout.echo']).selected).toEqual(new Set(['checkout.echo']));
    expect(selectRules(['checkout.ech']).unknown).toEqual(['checkout.ech']);
  });
});

describe('docs/rules.md', () => {
  it('is the catalog as the core generates it (npm run docs regenerates it)', async () => {
    const { rulesMarkdown } = await import('../../src/contract/rules-markdown.js');
    const committed = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'rules.md'), 'utf8');
    expect(committed).toBe(rulesMarkdown());
  });
});
