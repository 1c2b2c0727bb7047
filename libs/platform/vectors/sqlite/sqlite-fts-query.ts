/**
 * Builds the FTS5 MATCH expression for a user's keyword query. User text never reaches
 * FTS5's query syntax: it is split into the port's keyword tokens (runs of letters and
 * digits, so quotes, `*`, `^`, `:`, parentheses, `-`, `+` and NEAR/AND/OR/NOT as operators
 * cannot survive), each token is double-quoted (a string, never a keyword or column filter),
 * and the tokens are ORed, so BM25 ranks documents holding any of them. FTS5 stems the
 * quoted tokens itself with the table's `porter unicode61` tokenizer.
 */
import { queryTokens } from '@lore/platform/vectors/port';

/** The MATCH expression, or null when the text has no token (nothing can match). */
export function ftsQuery(text: string): string | null {
  const tokens = queryTokens(text);
  if (tokens.length === 0) return null;
  // A token holds letters, digits and marks only, never a double quote; quoting is still escaped for safety.
  return tokens.map((token) => `"${token.replace(/"/g, '""')}"`).join(' OR ');
}

