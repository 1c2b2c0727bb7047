/**
 * Text extraction from files (txt, md, html, json, csv, pdf, docx) for the knowledge context:
 * called by the gateway's upload route and by the knowledge service (re-extraction of a kept
 * original). Production code goes through ExtractionPool (reader processes, limits on time and
 * memory, fair turns across workspaces); errors are located at the file (FILE_FIELD), never at
 * a request part: the caller maps them to where the file came from.
 */
export { ExtractionPool, type ExtractionPoolOptions, type FileToExtract } from './extraction-pool';
export type { ExtractedText } from './extract-text';
export type { FileFormat } from './file-format';
export { FILE_FIELD } from './file-format';
export { DEFAULT_EXTRACTION_LIMITS, LIMIT_EXCEEDED, LIMIT_VARIABLES, type ExtractionLimits } from './extraction-limits';
