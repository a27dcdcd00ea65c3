import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { proxiedService } from '../helpers/proxy-fixture.js';

// Bodies kept whole with --record-bodies are redacted as text: a multipart form's fields of a
// secret name lose their content, whatever else the body holds.

const S = 'mult1part-s3cret-Hq5';

describe('bodies recorded whole', () => {
  it('lose the content of multipart fields of a secret name (--record-bodies)', async () => {
    const setup = await proxiedService({ proxy: { recordBodies: true } });
    try {
      const form = new FormData();
      form.append('client_id', 'acme');
      form.append('client_secret', S);
      form.append('file', new Blob([Buffer.from('%PDF-1.7\n%%EOF\n')], { type: 'application/pdf' }), 'a.pdf');
      const answer = await fetch(`${setup.proxy.url}oauth`, { method: 'POST', body: form });
      await answer.text();
      const [recorded] = await setup.recorded();
      const body = Buffer.from(recorded?.request.body?.base64 ?? '', 'base64').toString('latin1');
      expect(body).toContain('name="client_id"\r\n\r\nacme');
      expect(body).toContain('name="client_secret"\r\n\r\n[Filtered]\r\n');
      expect(readFileSync(setup.harFile, 'utf8')).not.toContain(S);
    } finally {
      await setup.dispose();
    }
  });
});
