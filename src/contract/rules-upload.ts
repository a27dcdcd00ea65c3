import { both, type RuleFacts, suiteOnly, trafficOnly, UPLOAD, uploadAnswer } from './rule-facts.js';

// Rules of POST files/{code}: what the service takes and what it answers.

export const UPLOAD_RULES = [
  {
    id: 'upload.content-type',
    severity: 'must',
    seed: '§4.3',
    area: 'upload',
    title: 'Uploads are PDF, PNG or JPEG',
    description:
      'An upload request has Content-Type application/pdf, image/png or image/jpeg (parameters allowed), or multipart/form-data whose file part carries one of those. The suite checks that text/plain and application/octet-stream bodies are rejected (4xx). In traffic, a request with another type is a violation, and a 2xx answer to it is a second one.',
    faces: both,
    formats: 'none',
    writes: true,
    evidence: {
      what: 'an upload request, and an answer to one of a refused type',
      kinds: UPLOAD,
      request: (f) => f.kind === 'POST files',
      response: (f) => f.kind === 'POST files' && f.uploadTypeRefused && f.status !== undefined,
    },
  },
  {
    id: 'upload.raw',
    severity: 'must',
    seed: '§4.3',
    area: 'upload',
    title: 'A raw-body upload is accepted',
    description:
      "A file sent as the raw request body with a correct Content-Type is accepted (2xx). The suite uploads each type named by --upload-types (default pdf). A book's content file must be a PDF: PNG and JPEG go to a slot that takes images (an item's cover) when the order gives one; a content slot refusing an image is an observation, never a failure.",
    faces: suiteOnly,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an answer to a raw upload of each type of --upload-types',
      kinds: UPLOAD,
    },
  },
  {
    id: 'upload.multipart',
    severity: 'must',
    seed: '§4.3',
    area: 'upload',
    title: 'A multipart/form-data upload is accepted',
    description:
      'The same file sent as a multipart/form-data file part is accepted (2xx), also when the form carries a text field before the file part, as browsers and HTTP clients write forms; FileType then names the file part.',
    faces: suiteOnly,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an answer to a multipart/form-data upload of each type of --upload-types',
      kinds: UPLOAD,
    },
  },
  {
    id: 'upload.response.schema',
    severity: 'must',
    seed: '§2.4',
    area: 'upload',
    title: 'Upload response has FileName and FileType',
    description: 'An upload response has FileName (string) and FileType (string), in JSON and in XML.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an accepted upload answer whose body could be read',
      kinds: UPLOAD,
      response: (f) =>
        f.kind === 'POST files' &&
        f.accepted &&
        (f.responseDocument !== undefined || f.responseEmpty) &&
        !f.responseShapeMasked,
    },
  },
  {
    id: 'upload.json.casing',
    severity: 'must',
    seed: '§2',
    area: 'upload',
    title: 'JSON upload property names start lower-case',
    description: 'Every JSON property name of an upload response starts with a lower-case letter.',
    faces: both,
    formats: 'json',
    writes: true,
    evidence: uploadAnswer('json'),
  },
  {
    id: 'upload.xml.casing',
    severity: 'must',
    seed: '§2',
    area: 'upload',
    title: 'XML upload element names are PascalCase',
    description: 'Every XML element name of an upload response starts with an upper-case letter.',
    faces: both,
    formats: 'xml',
    writes: true,
    evidence: uploadAnswer('xml'),
  },
  {
    id: 'upload.xml.root',
    severity: 'must',
    seed: '§2',
    area: 'upload',
    title: 'XML upload root element is UploadResult',
    description:
      'The root element of an XML upload response is <UploadResult> in no namespace, and so is every element below it.',
    faces: both,
    formats: 'xml',
    writes: true,
    evidence: uploadAnswer('xml'),
  },
  {
    id: 'upload.file-type',
    severity: 'must',
    seed: '§2.4, §4.3 r3',
    area: 'upload',
    title: 'FileType names the type of the bytes sent',
    description:
      'FileType names the type of the uploaded bytes as their magic numbers tell it: PDF for %PDF-, PNG for the PNG signature, JPEG or JPG for a JPEG start-of-image; compared case-insensitively. The suite also sends bytes of one type labelled as another (a JPEG as image/png): the service may refuse it, but if it accepts it, FileType names the bytes, not the label.',
    faces: both,
    formats: 'both',
    writes: true,
    evidence: {
      what: 'an accepted upload answer naming a FileType for a file whose bytes tell its type',
      kinds: UPLOAD,
      response: (f) => f.kind === 'POST files' && f.accepted && f.fileTypeComparable,
    },
  },
  {
    id: 'upload.content-sniff',
    severity: 'should',
    seed: '§4.3',
    area: 'upload',
    title: 'Declared upload type matches the bytes',
    description:
      'The declared Content-Type of an upload (or of its multipart file part) matches the magic bytes of the body: %PDF- for application/pdf, the PNG signature for image/png, FF D8 FF for image/jpeg.',
    faces: trafficOnly,
    formats: 'none',
    writes: true,
    evidence: {
      what: 'an upload of an allowed type whose first bytes were recorded',
      kinds: UPLOAD,
      request: (f) => f.kind === 'POST files' && f.uploadBytesKnown,
    },
  },
] as const satisfies readonly RuleFacts[];
