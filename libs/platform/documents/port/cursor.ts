/**
 * Keyset cursors: the sort values and id of the last item returned, opaque to clients, and a
 * fingerprint of the query (sort and filter) that made them, so that a cursor used with
 * another query is refused rather than positioning that query's pages wrongly.
 */
export interface CursorPosition {
  readonly values: readonly unknown[];
  readonly id: string;
  /** Absent in cursors made by hand (callers paging in memory); then not checked. */
  readonly query?: string;
}

export function encodeCursor(position: CursorPosition): string {
  const parts: unknown[] = [position.values, position.id];
  if (position.query !== undefined) parts.push(position.query);
  return Buffer.from(JSON.stringify(parts)).toString('base64url');
}

export function decodeCursor(cursor: string): CursorPosition | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length < 2 || parsed.length > 3 || !Array.isArray(parsed[0]) || typeof parsed[1] !== 'string') return null;
    if (parsed.length === 3 && typeof parsed[2] !== 'string') return null;
    return { values: parsed[0] as unknown[], id: parsed[1], ...(parsed.length === 3 ? { query: parsed[2] as string } : {}) };
  } catch {
    return null;
  }
}
