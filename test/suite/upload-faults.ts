import { extname } from 'node:path';
import { mediaType } from '../../src/validate/exchange.js';
import type { Mutant } from './mutant-helpers.js';

// Faults real stacks make with uploads: framing they do not take (chunked bodies, Expect:
// 100-continue), spellings they compare whole (a charset on the type, the file field's name),
// FileType taken from a label (the file name, the part's type), and a size limit that fails
// instead of refusing.

const MIB = 1024 * 1024;

const FILE_TYPE_OF_EXTENSION: Record<string, string> = {
  '.pdf': 'PDF',
  '.png': 'PNG',
  '.jpg': 'JPEG',
  '.jpeg': 'JPEG',
};
const FILE_TYPE_OF_LABEL: Record<string, string> = {
  'application/pdf': 'PDF',
  'image/png': 'PNG',
  'image/jpeg': 'JPEG',
};

const isForm = (contentType: string | undefined) => mediaType(contentType) === 'multipart/form-data';

export const UPLOAD_MUTANTS: Mutant[] = [
  {
    // A WSGI server hands the application no body it cannot size; the front answers 411.
    name: 'raw uploads without Content-Length answered 411 Length Required (a front that takes no chunked bodies)',
    dialect: {
      refuseUpload: (request) =>
        request.headers['content-length'] === undefined && !isForm(request.headers['content-type']) ? 411 : undefined,
    },
    fails: ['upload.raw'],
  },
  {
    name: 'Expect: 100-continue answered 417 Expectation Failed (lighttpd 1.4)',
    dialect: { refuseUpload: (request) => (request.headers.expect ? 417 : undefined) },
    fails: ['upload.raw'],
  },
  {
    name: "the upload's Content-Type compared whole: application/pdf; charset=binary (PHP finfo) refused 415",
    dialect: {
      refuseUpload: (request) => {
        const type = request.headers['content-type'] ?? '';
        return !isForm(type) && type.includes(';') ? 415 : undefined;
      },
    },
    fails: ['upload.raw'],
  },
  {
    // multer's upload.single('file') throws MulterError "Unexpected field"; Express answers 500.
    name: "multer's upload.single('file'): a file under another field name fails with Unexpected field",
    dialect: { multipartFileField: 'file' },
    fails: ['http.no-server-error', 'upload.multipart'],
  },
  {
    name: "FileType from the file name's extension (pathinfo($name, PATHINFO_EXTENSION))",
    dialect: {
      fileTypeOf: ({ kind, fileName }) => FILE_TYPE_OF_EXTENSION[extname(fileName ?? '').toLowerCase()] ?? kind,
    },
    fails: ['upload.file-type'],
  },
  {
    name: "FileType from the form's label of the file part ($_FILES['file']['type'])",
    dialect: {
      fileTypeOf: ({ kind, declaredType, multipart }) =>
        multipart ? (FILE_TYPE_OF_LABEL[declaredType ?? ''] ?? kind) : kind,
    },
    fails: ['upload.file-type'],
  },
  {
    // Past upload_max_filesize PHP leaves $_FILES['file']['tmp_name'] empty; reading it fails.
    name: 'a form file past PHP upload_max_filesize (2M) read from an empty tmp_name: 500',
    dialect: { uploadFails: ({ size, multipart }) => multipart && size > 2 * MIB },
    fails: ['http.no-server-error'],
  },
];

export const UPLOAD_DIALECTS: Mutant[] = [
  {
    name: "an Express service whose raw uploads stop at express.raw()'s 100 KiB limit (413)",
    dialect: {
      refuseUpload: (request) =>
        !isForm(request.headers['content-type']) && Number(request.headers['content-length']) > 100 * 1024
          ? 413
          : undefined,
    },
    fails: [],
  },
];
