/** What `npm run audit -- …` was asked for; parsed by hand to keep the tool dependency-free. */
export interface ReplayFilters {
  readonly context?: string;
  readonly workspace?: string;
  readonly stream?: string;
  readonly aggregate?: string;
  readonly type?: string;
  readonly since?: string;
  readonly until?: string;
  readonly actor?: string;
}

export type AuditCommand =
  | { readonly command: 'replay'; readonly filters: ReplayFilters; readonly format: 'jsonl' | 'table' }
  | { readonly command: 'verify'; readonly context?: string };

export const USAGE = `usage:
  npm run audit -- [--context c] [--workspace w] [--stream s] [--aggregate id] [--type t]
                   [--since iso] [--until iso] [--actor a] [--format jsonl|table]
  npm run audit -- verify [--context c]`;

const FILTERS = ['context', 'workspace', 'stream', 'aggregate', 'type', 'since', 'until', 'actor'] as const;

/** Parses the arguments; throws an Error whose message is meant for the user. */
export function parseAuditArgs(argv: readonly string[]): AuditCommand {
  const args = [...argv];
  const verify = args[0] === 'verify';
  if (verify) args.shift();
  const values = new Map<string, string>();
  while (args.length > 0) {
    const flag = args.shift() as string;
    const eq = flag.indexOf('=');
    const name = flag.startsWith('--') ? flag.slice(2, eq === -1 ? undefined : eq) : '';
    const value = eq === -1 ? args.shift() : flag.slice(eq + 1);
    if (name === '' || value === undefined || value === '') throw new Error(`unexpected argument ${flag}\n${USAGE}`);
    if (!([...FILTERS, 'format'] as readonly string[]).includes(name)) throw new Error(`unknown option --${name}\n${USAGE}`);
    values.set(name, value);
  }
  if (verify) {
    const extra = [...values.keys()].filter((k) => k !== 'context');
    if (extra.length > 0) throw new Error(`verify takes only --context\n${USAGE}`);
    const context = values.get('context');
    return context === undefined ? { command: 'verify' } : { command: 'verify', context };
  }
  const format = values.get('format') ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'table') throw new Error(`--format is jsonl or table\n${USAGE}`);
  for (const bound of ['since', 'until'] as const) {
    const at = values.get(bound);
    if (at !== undefined && Number.isNaN(Date.parse(at))) throw new Error(`--${bound} must be an ISO 8601 time, got ${at}`);
  }
  const filters: Record<string, string> = {};
  for (const name of FILTERS) {
    const value = values.get(name);
    // Times are compared as instants, so any ISO form the user types works.
    if (value !== undefined) filters[name] = name === 'since' || name === 'until' ? new Date(value).toISOString() : value;
  }
  return { command: 'replay', filters, format };
}
