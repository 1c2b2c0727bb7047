import { invalid, nestingOverflowPosition } from '@lore/platform/kernel';

import { FILE_FIELD } from './file-format';
import { checkTextSize, DEFAULT_EXTRACTION_LIMITS, limitExceeded, type ExtractionLimits } from './extraction-limits';

/**
 * Renders JSON as one `path: value` line per leaf, e.g.
 *
 *   order.id: 42
 *   order.items[0].name: Green tea
 *   order.items[1].name: Oolong
 *
 * Why this shape for retrieval: every line carries its full path, so a chunk cut anywhere in
 * a large document still says what its values are (an embedding of `items[1].name: Oolong`
 * means something; a bare `"Oolong"` two closing braces deep does not), and keys become
 * ordinary words that keyword search matches. Strings are written unquoted so the text reads
 * naturally; brackets and quotes of pretty-printed JSON would only add tokens.
 */
export function jsonText(text: string, filename: string, limits: ExtractionLimits = DEFAULT_EXTRACTION_LIMITS): string {
  if (nestingOverflowPosition(text, limits.maxDepth) >= 0) {
    throw limitExceeded(filename, `nests JSON arrays and objects deeper than ${limits.maxDepth} levels`, 'maxDepth');
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw invalid(FILE_FIELD, `"${filename}" is not valid JSON: ${reason}`);
  }
  return flatten(value, (chars) => checkTextSize(chars, limits, filename)).join('\n');
}

/**
 * Depth-first, without recursion: an uploaded file may nest far deeper than the call stack
 * allows (JSON.parse itself copes with that). The stack holds [path, value] pairs in reverse,
 * so lines come out in document order.
 */
function flatten(root: unknown, checkSize: (chars: number) => void): string[] {
  const lines: string[] = [];
  let chars = 0;
  const push = (text: string): void => {
    // Every line repeats its path, so the text of a deep and wide value can be far larger
    // than the file: counted as it grows, and stopped at the limit.
    chars += text.length + 1;
    checkSize(chars);
    lines.push(text);
  };
  const stack: Array<[string, unknown]> = [['', root]];
  while (stack.length > 0) {
    const [path, value] = stack.pop() as [string, unknown];
    if (value !== null && typeof value === 'object') {
      const entries: Array<[string, unknown]> = Array.isArray(value)
        ? value.map((item, index): [string, unknown] => [`${path}[${index}]`, item])
        : Object.entries(value).map(([key, item]): [string, unknown] => [join(path, key), item]);
      if (entries.length === 0) push(line(path, Array.isArray(value) ? '[]' : '{}'));
      for (let i = entries.length - 1; i >= 0; i--) stack.push(entries[i] as [string, unknown]);
    } else {
      push(line(path, typeof value === 'string' ? value : JSON.stringify(value)));
    }
  }
  return lines;
}

/** A key that is a plain word is appended with a dot; anything else (spaces, dots, empty) is quoted. */
function join(path: string, key: string): string {
  if (/^[\p{L}\p{N}_$-]+$/u.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** A top-level scalar has no path, so it is written alone. */
function line(path: string, value: string): string {
  return path === '' ? value : `${path}: ${value}`;
}
