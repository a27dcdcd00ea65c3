import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';
import { multipartOf, SAMPLE_FILES, SAMPLE_MEDIA_TYPES } from './sample-files.js';

// Probes of POST files/{code} in one response format: each requested type raw and as multipart,
// then the two types the service must refuse.

export async function probeUpload(run: ProbeRun, format: Format): Promise<void> {
  const { content, cover } = run.config.uploadUrls;
  const accept = MEDIA_TYPE_OF[format];
  for (const type of run.config.uploadTypes) {
    // Books take PDF content; images go to the cover slot where there is one.
    const url = type === 'pdf' ? (content ?? cover) : (cover ?? content);
    if (!url) continue;
    const file = SAMPLE_FILES[type];
    const mediaType = SAMPLE_MEDIA_TYPES[type];
    await run.probe(
      { method: 'POST', url, headers: { accept, 'content-type': mediaType }, body: file },
      { format, expect: { rule: 'upload.raw', answer: 'accepted', what: `a raw ${mediaType} upload` } },
    );
    const form = multipartOf(file, mediaType, `sample.${type}`);
    await run.probe(
      { method: 'POST', url, headers: { accept, 'content-type': form.contentType }, body: form.body },
      {
        format,
        expect: { rule: 'upload.multipart', answer: 'accepted', what: `a multipart/form-data ${mediaType} upload` },
      },
    );
  }
  const url = content ?? cover;
  if (!url) return;
  for (const wrongType of ['text/plain', 'application/octet-stream']) {
    await run.probe(
      { method: 'POST', url, headers: { accept, 'content-type': wrongType }, body: SAMPLE_FILES.pdf },
      {
        format,
        expect: { rule: 'upload.content-type', answer: 'rejected', what: `an upload sent as ${wrongType}` },
        ignore: ['upload.content-type'],
      },
    );
  }
}
