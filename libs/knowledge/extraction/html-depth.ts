import { Parser } from 'htmlparser2';

import { limitExceeded, type ExtractionLimits } from './extraction-limits';

/** Thrown from the parser's callback to stop it at the first element past the limit. */
class TooDeep extends Error {}

/**
 * Refuses HTML that nests elements deeper than `maxDepth`, before html-to-text walks it:
 * html-to-text formats its DOM recursively, and about 3,000 levels overflow the stack.
 * Measured with htmlparser2, the parser html-to-text itself uses, so the depth is the one its
 * DOM would have: elements a browser closes implicitly (`<p>`, `<li>`) and void elements
 * (`<br>`) do not count as nesting. The parser is a state machine (no recursion), and stops
 * at the first element past the limit, so a 100,000-level file costs no more than 513 levels.
 */
export function checkHtmlDepth(html: string, limits: ExtractionLimits, filename: string): void {
  let depth = 0;
  const parser = new Parser({
    onopentag() {
      depth++;
      if (depth > limits.maxDepth) throw new TooDeep();
    },
    onclosetag() {
      depth--;
    },
  });
  try {
    parser.end(html);
  } catch (error) {
    if (error instanceof TooDeep) throw limitExceeded(filename, `nests its HTML deeper than ${limits.maxDepth} levels`, 'maxDepth');
    throw error;
  }
}
