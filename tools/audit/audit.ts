/**
 * `npm run audit -- …`: replays the event history of every context, read-only, and checks
 * each stream's hash chain (`verify`). Safe while Lore runs: SQLite files are opened
 * read-only with short reads, EventStoreDB is only read. Sealed values are never decrypted:
 * they print as `[sealed <keyId>]`, or `[erased]` once their data key was shredded.
 */
import type { Writable } from 'node:stream';
import { loadConfig } from '@lore/platform/runtime';
import { CONTEXTS } from '../../apps/contexts';
import { parseAuditArgs } from './audit-options';
import type { ReplayFilters } from './audit-options';
import { openAuditSources } from './audit-source';
import type { AuditSource } from './audit-source';
import { matches, mergeByTime, tableHeader, tableRow, toLine } from './audit-replay';
import { describeVerdict, verifySource } from './audit-verify';
import { KeyPresence } from './sealed-values';

export interface AuditIo {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Pick<Writable, 'write'>;
  readonly stderr: Pick<Writable, 'write'>;
}

/** Runs the audit; resolves to the exit code (1: bad arguments, or a broken chain found by verify). */
export async function runAudit(argv: readonly string[], io: AuditIo): Promise<number> {
  let command;
  try {
    command = parseAuditArgs(argv);
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  const config = loadConfig(io.env);
  const names = CONTEXTS.map((c) => c.service.name);
  const wanted = command.command === 'verify' ? command.context : command.filters.context;
  if (wanted !== undefined && !names.includes(wanted)) {
    io.stderr.write(`unknown context ${wanted}; contexts: ${names.join(', ')}\n`);
    return 1;
  }
  const all = openAuditSources(config, names);
  // EventStoreDB holds every context in one log: a context filter cannot split it.
  const sources = all.filter((s) => wanted === undefined || s.context === wanted || s.context === 'eventstoredb');
  if (wanted !== undefined && sources.some((s) => s.context === 'eventstoredb')) io.stderr.write(`EventStoreDB holds every context in one log; --context ${wanted} is ignored\n`);
  try {
    if (command.command === 'verify') return await verify(sources, io);
    await replay(sources, command.filters, command.format, config.dataDir, names, io);
    return 0;
  } finally {
    await Promise.all(all.map((s) => s.close()));
  }
}

async function verify(sources: readonly AuditSource[], io: AuditIo): Promise<number> {
  let broken = 0;
  for (const source of sources) {
    const verdict = await verifySource(source);
    broken += verdict.broken.length;
    io.stdout.write(`${describeVerdict(verdict)}\n`);
  }
  if (sources.length === 0) io.stdout.write('no event store found: nothing to verify\n');
  io.stdout.write(broken === 0 ? 'verify: every chain is intact\n' : `verify: ${broken} broken stream${broken === 1 ? '' : 's'}\n`);
  return broken === 0 ? 0 : 1;
}

async function replay(
  sources: readonly AuditSource[],
  filters: ReplayFilters,
  format: 'jsonl' | 'table',
  dataDir: string,
  contexts: readonly string[],
  io: AuditIo,
): Promise<void> {
  const keys = new KeyPresence(dataDir, contexts);
  try {
    if (format === 'table') io.stdout.write(`${tableHeader()}\n`);
    for await (const { context, event } of mergeByTime(sources)) {
      if (!matches(event, filters)) continue;
      const line = toLine(context, event, keys);
      io.stdout.write(`${format === 'table' ? tableRow(line) : JSON.stringify(line)}\n`);
    }
  } finally {
    keys.close();
  }
}
