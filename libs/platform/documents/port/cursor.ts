/** Keyset cursors: the sort values and id of the last item returned, opaque to clients. */
export interface CursorPosition {
  readonly values: readonly unknown[];
  readonly id: string;
}

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(JSON.stringify([position.values, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): CursorPosition | null {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Array.isArray(parsed) || parsed.length !== 2 || !Array.isArray(parsed[0]) || typeof parsed[1] !== 'string') return null;
    return { values: parsed[0] as unknown[], id: parsed[1] };
  } catch {
    return null;
  }
}
