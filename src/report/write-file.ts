// Reports are written whole or not at all, never through a link planted where they go: see
// src/output/output-file.ts, which every writer of files goes through.
export { writeFileWhole } from '../output/output-file.js';
