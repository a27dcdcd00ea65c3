import { probeUploadAccept } from './accept-probes.js';
import { type Format, MEDIA_TYPE_OF } from './config.js';
import type { ProbeRun } from './probe-run.js';
import { EXIF_JPEG, multipartOf, SAMPLE_FILES, SAMPLE_MEDIA_TYPES } from './sample-files.js';
import { probeUploadSizes } from './size-probes.js';
import { probeUploadVariants } from './upload-variant-probes.js';

// Probes of POST files/{code} in one response format: each requested type raw, as multipart, and
// as multipart behind a text field; a file labelled as another type; then the two types the
// service must refuse.

/** A text field written before the file part, as a browser writes a form's other inputs. */
const FORM_FIELDS = { title: 'print-conformance probe' };

export async function probeUpload(run: ProbeRun, format: Format): Promise<void> {
  const { content, cover } = run.config.uploadUrls;
  const accept = MEDIA_TYPE_OF[format];
  for (const type of run.config.uploadTypes) {
    // A book's content takes a PDF (seed §4.3 r1): images go to the cover where there is one.
    const image = type !== 'pdf';
    const url = image ? (cover ?? content) : (content ?? cover);
    if (!url) continue;
    const file = SAMPLE_FILES[type];
    const mediaType = SAMPLE_MEDIA_TYPES[type];
    // A content slot may refuse an image: recorded in the profile, never a failure.
    const refusalObserved = image && !cover ? `POST files ${mediaType} to a content slot refused` : undefined;
    await run.probe(
      { method: 'POST', url, headers: { accept, 'content-type': mediaType }, body: file },
      {
        format,
        expect: { rule: 'upload.raw', answer: 'accepted', what: `a raw ${mediaType} upload` },
        refusalObserved,
      },
    );
    for (const fields of [{}, FORM_FIELDS]) {
      const form = multipartOf(file, mediaType, `sample.${type}`, fields);
      const behind = Object.keys(fields).length > 0 ? ' whose file part comes after a text field' : '';
      await run.probe(
        { method: 'POST', url, headers: { accept, 'content-type': form.contentType }, body: form.body },
        {
          format,
          expect: {
            rule: 'upload.multipart',
            answer: 'accepted',
            what: `a multipart/form-data ${mediaType} upload${behind}`,
          },
          refusalObserved,
        },
      );
    }
  }
  const url = content ?? cover;
  if (!url) return;
  // A JPEG labelled image/png: a service may refuse it, but one that takes it names the bytes in
  // FileType (upload.file-type), not the label it was sent with.
  await run.probe(
    { method: 'POST', url: cover ?? url, headers: { accept, 'content-type': 'image/png' }, body: SAMPLE_FILES.jpeg },
    { format, refusalObserved: 'POST files of a JPEG labelled image/png refused' },
  );
  // A JPEG as cameras write it (Exif, not JFIF): FileType names it JPEG all the same. Once: what
  // the bytes are called does not depend on the answer's format.
  if (run.config.uploadTypes.includes('jpeg') && format === run.config.formats[0]) {
    await run.probe(
      { method: 'POST', url: cover ?? url, headers: { accept, 'content-type': 'image/jpeg' }, body: EXIF_JPEG },
      {
        format,
        expect: { rule: 'upload.raw', answer: 'accepted', what: 'a raw image/jpeg upload of an Exif JPEG' },
        ...(cover ? {} : { refusalObserved: 'POST files image/jpeg to a content slot refused' }),
      },
    );
  }
  await probeUploadAccept(run, format);
  // How uploads are framed, spelt and sized is the service's reading of the request, whatever the
  // answer's format: probed once.
  if (format === run.config.formats[0]) {
    await probeUploadVariants(run, format);
    await probeUploadSizes(run, format);
  }
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
