import { sendFramed } from '../http/send-framed.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';
import { APP13_JPEG, type FormSpelling, multipartOf, PDF_2, SAMPLE_FILES } from './sample-files.js';

// Uploads as real clients write and frame them, beyond the plain raw and multipart ones: a PDF
// streamed in chunks and one sent behind Expect: 100-continue; a Content-Type with PHP finfo's
// `charset=binary`; forms with a quoted boundary (.NET), a text field after the file, the file
// under another field name; and forms whose labels say something else than the bytes, where
// FileType must still name the bytes.

interface FormProbe {
  what: string;
  spelling: FormSpelling;
}

const FORMS: FormProbe[] = [
  { what: 'whose boundary is quoted in Content-Type', spelling: { quotedBoundary: true } },
  { what: 'with a text field after the file part', spelling: { fieldsAfter: { title: 'print-conformance probe' } } },
  { what: 'whose file part is named "upload"', spelling: { fileField: 'upload' } },
];

export async function probeUploadVariants(run: ProbeRun, format: Format): Promise<void> {
  const { content, cover } = run.config.uploadUrls;
  const url = content ?? cover;
  // The PDF these send is one of the types asked for (--upload-types) or none is sent.
  if (!url || !run.config.uploadTypes.includes('pdf')) return;
  const accept = MEDIA_TYPE_OF[format];
  const pdf = SAMPLE_FILES.pdf;
  const headers = { accept, 'content-type': 'application/pdf' };

  for (const [framing, what] of [
    [{ chunked: true }, 'a raw PDF upload sent Transfer-Encoding: chunked'],
    [{ expectContinue: true }, 'a raw PDF upload sent with Expect: 100-continue'],
  ] as const) {
    const exchange = await run.send({ method: 'POST', url, headers, body: pdf }, true, (outgoing, timeoutMs) =>
      sendFramed({ ...outgoing, body: pdf }, framing, timeoutMs),
    );
    run.record(exchange, { format, expect: { rule: 'upload.raw', answer: 'accepted', what } });
  }

  await run.probe(
    { method: 'POST', url, headers: { accept, 'content-type': 'application/pdf; charset=binary' }, body: pdf },
    {
      format,
      expect: {
        rule: 'upload.raw',
        answer: 'accepted',
        what: 'a raw PDF upload sent as application/pdf; charset=binary',
      },
    },
  );
  for (const probe of FORMS) {
    const form = multipartOf(pdf, 'application/pdf', 'content.pdf', {}, probe.spelling);
    await run.probe(
      { method: 'POST', url, headers: { accept, 'content-type': form.contentType }, body: form.body },
      {
        format,
        expect: {
          rule: 'upload.multipart',
          answer: 'accepted',
          what: `a multipart/form-data PDF upload ${probe.what}`,
        },
      },
    );
  }

  // Labels that are not the bytes: FileType names the bytes (the core judges upload.file-type).
  const named = multipartOf(pdf, 'application/pdf', 'cover.png');
  await run.probe(
    { method: 'POST', url, headers: { accept, 'content-type': named.contentType }, body: named.body },
    {
      format,
      expect: {
        rule: 'upload.multipart',
        answer: 'accepted',
        what: 'a multipart PDF upload whose file name ends in .png',
      },
    },
  );
  const mislabelled = multipartOf(SAMPLE_FILES.png, 'application/pdf', 'cover.pdf');
  await run.probe(
    {
      method: 'POST',
      url: cover ?? url,
      headers: { accept, 'content-type': mislabelled.contentType },
      body: mislabelled.body,
    },
    { format, refusalObserved: 'POST files of a form whose PNG file part is labelled application/pdf refused' },
  );
  const untyped = multipartOf(pdf, 'application/octet-stream', 'content.pdf');
  await run.probe(
    { method: 'POST', url, headers: { accept, 'content-type': untyped.contentType }, body: untyped.body },
    {
      format,
      expect: {
        rule: 'upload.content-type',
        answer: 'rejected',
        what: 'a multipart upload whose file part is labelled application/octet-stream',
      },
      ignore: ['upload.content-type'],
    },
  );
  await probeFileVersions(run, format);
}

/**
 * Files as other writers head them: a PDF 2.0, and (to a cover that took a JFIF JPEG) a JPEG
 * whose first segment is APP13, both to be accepted; a JPEG labelled `image/jpg` and a form
 * whose file part names no type, both to be refused (neither is one of the three types).
 */
async function probeFileVersions(run: ProbeRun, format: Format): Promise<void> {
  const { content, cover } = run.config.uploadUrls;
  const url = (content ?? cover) as string;
  const accept = MEDIA_TYPE_OF[format];
  await run.probe(
    { method: 'POST', url, headers: { accept, 'content-type': 'application/pdf' }, body: PDF_2 },
    { format, expect: { rule: 'upload.raw', answer: 'accepted', what: 'a raw upload of a PDF 2.0 (%PDF-2.0)' } },
  );
  await run.probe(
    { method: 'POST', url: cover ?? url, headers: { accept, 'content-type': 'image/jpg' }, body: SAMPLE_FILES.jpeg },
    {
      format,
      expect: { rule: 'upload.content-type', answer: 'rejected', what: 'a JPEG upload sent as image/jpg' },
      ignore: ['upload.content-type'],
    },
  );
  const untyped = multipartOf(SAMPLE_FILES.pdf, 'application/pdf', 'content.pdf', {}, { untypedPart: true });
  await run.probe(
    { method: 'POST', url, headers: { accept, 'content-type': untyped.contentType }, body: untyped.body },
    {
      format,
      expect: {
        rule: 'upload.content-type',
        answer: 'rejected',
        what: 'a multipart upload whose file part has no Content-Type of its own',
      },
      ignore: ['upload.content-type'],
    },
  );
  if (!cover) return;
  // The cover's answer to a plain JPEG says whether it takes JPEGs at all (the profile notes a refusal).
  const plain = await run.probe(
    { method: 'POST', url: cover, headers: { accept, 'content-type': 'image/jpeg' }, body: SAMPLE_FILES.jpeg },
    { format, refusalObserved: 'POST files image/jpeg to the cover refused' },
  );
  const status = plain.response?.status ?? 0;
  if (status < 200 || status > 299) return;
  await run.probe(
    { method: 'POST', url: cover, headers: { accept, 'content-type': 'image/jpeg' }, body: APP13_JPEG },
    {
      format,
      expect: {
        rule: 'upload.raw',
        answer: 'accepted',
        what: 'a raw JPEG upload whose first segment is APP13 (Photoshop)',
      },
    },
  );
}
