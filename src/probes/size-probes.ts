import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';
import { multipartOf, paddedPdf } from './sample-files.js';

// Uploads of the sizes where framework limits sit: Express's raw body parser cuts at 100 KiB, nginx
// and many form readers at 1 MiB, PHP's upload_max_filesize at 2 MiB. One raw and one multipart PDF
// of a few MiB: how the service answers goes to the profile; a refusal (413) is its limit to set,
// an answer 5xx is a failure (http.no-server-error) like any other.

export const SIZE_PROBE_BYTES = 3 * 1024 * 1024;

export async function probeUploadSizes(run: ProbeRun, format: Format): Promise<void> {
  const url = run.config.uploadUrls.content ?? run.config.uploadUrls.cover;
  // The PDF these send is one of the types asked for (--upload-types) or none is sent.
  if (!url || !run.config.uploadTypes.includes('pdf')) return;
  const accept = MEDIA_TYPE_OF[format];
  const file = paddedPdf(SIZE_PROBE_BYTES);
  const mib = `${SIZE_PROBE_BYTES / 1024 / 1024} MiB`;
  const raw = await run.probe(
    { method: 'POST', url, headers: { accept, 'content-type': 'application/pdf' }, body: file },
    { format, refusalObserved: `POST files of a ${mib} raw PDF refused` },
  );
  run.observe('observe.status-codes', `POST files of a ${mib} raw PDF`, answerOf(raw));
  const form = multipartOf(file, 'application/pdf', 'content.pdf');
  const multipart = await run.probe(
    { method: 'POST', url, headers: { accept, 'content-type': form.contentType }, body: form.body },
    { format, refusalObserved: `POST files of a ${mib} multipart PDF refused` },
  );
  run.observe('observe.status-codes', `POST files of a ${mib} multipart PDF`, answerOf(multipart));
}

function answerOf(exchange: { response?: { status: number }; error?: string }): string {
  return exchange.response ? String(exchange.response.status) : `no answer (${exchange.error})`;
}
