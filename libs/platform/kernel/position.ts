/**
 * A place in the global event log. EventStoreDB addresses `$all` by a (commit, prepare)
 * pair; the SQLite store uses its sequence number for both. Ordering is by commit, then prepare.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

export const START: Position = { commit: -1n, prepare: -1n };

export function comparePositions(a: Position, b: Position): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function isAfterOrAt(a: Position, b: Position): boolean {
  return comparePositions(a, b) >= 0;
}

/** Checkpoints are stored as text so that every document engine can keep them exactly. */
export function positionToString(p: Position): string {
  return `${p.commit}:${p.prepare}`;
}

export function positionFromString(text: string): Position {
  const [commit, prepare] = text.split(':');
  if (commit === undefined || prepare === undefined) throw new Error(`malformed position "${text}"`);
  return { commit: BigInt(commit), prepare: BigInt(prepare) };
}
