import { invalid } from '@lore/platform/kernel';

import { FILE_FIELD } from './file-format';
import { checkTextSize, DEFAULT_EXTRACTION_LIMITS, limitExceeded, type ExtractionLimits } from './extraction-limits';

/**
 * Parses CSV as RFC 4180 describes: comma-separated fields, records ending in CRLF or LF,
 * fields in double quotes may contain commas, line breaks and `""` (one quote). Two liberties,
 * as most readers take them: a quote inside an unquoted field is kept as a character, and text
 * after a closing quote is appended to the field, so hand-edited files still load. A quoted
 * field that never closes is an error: everything after it would silently become one field.
 */
export function parseCsv(text: string, filename = 'file', limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false; // inside a quoted section
  let quoteLine = 0; // where the open quote was, for the error
  let line = 1;
  // Counted as they are made: a file of line breaks or of commas is millions of empty cells.
  const endField = (): void => {
    row.push(field);
    field = '';
    if (row.length > limits.maxCsvColumns) {
      throw limitExceeded(filename, `has a CSV record with more than ${limits.maxCsvColumns} fields`, 'maxCsvColumns');
    }
  };
  const endRow = (): void => {
    rows.push(row);
    row = [];
    if (rows.length > limits.maxCsvRows) throw limitExceeded(filename, `has more than ${limits.maxCsvRows} CSV records`, 'maxCsvRows');
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') {
        quoted = false;
      } else {
        if (char === '\n') line++;
        field += char;
      }
    } else if (char === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (char === ',') {
      endField();
    } else if (char === '\n' || char === '\r') {
      if (char === '\r' && text[i + 1] === '\n') i++;
      endField();
      endRow();
      line++;
    } else {
      field += char;
    }
  }
  if (quoted) {
    throw invalid(FILE_FIELD, `"${filename}" is not valid CSV: the quoted field opened on line ${quoteLine} is never closed`);
  }
  // The last record may or may not end with a line break.
  if (field !== '' || row.length > 0) {
    endField();
    endRow();
  }
  return rows;
}

/**
 * Renders each data row as `header: value; header: value`, one row per line. Each line is
 * self-describing, so a chunk holding rows 500–520 still names its columns, and a search for
 * "city: Lyon" matches the way a person would phrase it. Empty cells are left out (noise), a
 * column without a header is called "column N", and blank rows are skipped. Line breaks inside
 * a quoted cell become spaces, so that one line is still one row.
 */
export function csvText(text: string, filename: string, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): string {
  const rows = parseCsv(text, filename, limits).filter((row) => row.some((cell) => cell.trim() !== ''));
  const [header, ...data] = rows;
  if (header === undefined) return '';
  const names = header.map((name, i) => oneLine(name) || `column ${i + 1}`);
  // A header-only file still has searchable content: its column names.
  if (data.length === 0) return names.join(', ');
  // Each row repeats the header names, so the text can be many times the file: counted as it grows.
  let chars = 0;
  return data
    .map((row) => {
      const line = row
        .map((cell, i) => [names[i] ?? `column ${i + 1}`, oneLine(cell)] as const)
        .filter(([, cell]) => cell !== '')
        .map(([name, cell]) => `${name}: ${cell}`)
        .join('; ');
      chars += line.length + 1;
      checkTextSize(chars, limits, filename);
      return line;
    })
    .join('\n');
}

function oneLine(cell: string): string {
  return cell.replace(/\s+/g, ' ').trim();
}
