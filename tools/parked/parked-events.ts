/**
 * Operators' view of parked events (README "Parked events"): `npm run parked -- list
 * [--processor X] [--workspace W] [--json]` and `npm run parked -- retry <id>|--all
 * [--processor X] [--workspace W]`. Every workspace is visible here (the HTTP routes show
 * only the caller's).
 *
 * Where it works: with NATS_URL set (the distributed topology) it asks the running services
 * over NATS, so it works while Lore runs and their processors apply the retried events. In
 * the standalone topology the processors live inside the Lore process, out of reach: run it
 * while Lore is stopped (as `projections:rebuild`). It then opens the same stores over
 * DATA_DIR, builds each context as the app does (integration events a retried reactor
 * publishes go to the same embedded feed) and retries in this process.
 */
import { NO_RERANKERS } from '@lore/platform/rerank/port';
import { keepSqliteTempFilesIn } from '@lore/platform/sqlite';
import pino from 'pino';
import type { Writable } from 'node:stream';
import { openEgress } from '@lore/platform/egress/node';
import { systemClock } from '@lore/platform/kernel';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { journaledTransport, openEmbeddedEventFeed } from '@lore/platform/transport/sqlite-feed';
import { parkedEventsListMessage, parkedEventsRetryMessage, send, type ParkedEventRecord, type Transport } from '@lore/platform/transport/port';
import { EventProcessors } from '@lore/platform/projections';
import { loadConfig, loadContextConfig, openTransport, type LoreConfig } from '@lore/platform/runtime';
import { openChatModel, openContextStores, openEmbeddingModels } from '@lore/platform/host';
import { CONTEXTS } from '../../apps/contexts';

interface Io {
  readonly env: NodeJS.ProcessEnv;
  readonly stdout: Pick<Writable, 'write'>;
  readonly stderr: Pick<Writable, 'write'>;
}

interface Command {
  readonly action: 'list' | 'retry';
  readonly id?: string;
  readonly processor?: string;
  readonly workspaceId?: string;
  readonly json: boolean;
}

/** What one context answers, whichever way it is reached. */
interface Reached {
  list(scope: Omit<Command, 'action' | 'json' | 'id'>): Promise<ParkedEventRecord[]>;
  retry(selector: Omit<Command, 'action' | 'json'>): Promise<{ found: boolean; applied: number; failed: ParkedEventRecord[] }>;
  close(): Promise<void>;
}

const USAGE = 'usage: npm run parked -- list [--processor X] [--workspace W] [--json]\n       npm run parked -- retry <id>|--all [--processor X] [--workspace W]\n';

export function parseCommand(args: readonly string[]): Command | string {
  const [action, ...rest] = args;
  if (action !== 'list' && action !== 'retry') return USAGE;
  let id: string | undefined;
  let all = false;
  let json = false;
  const options: { processor?: string; workspaceId?: string } = {};
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    const value = rest[i + 1];
    if (arg === '--processor' || arg === '--workspace') {
      if (value === undefined) return `${arg} needs a value\n${USAGE}`;
      options[arg === '--processor' ? 'processor' : 'workspaceId'] = value;
      i++;
    } else if (arg === '--all') all = true;
    else if (arg === '--json') json = true;
    else if (action === 'retry' && id === undefined && !arg.startsWith('--')) id = arg;
    else return `unexpected argument ${JSON.stringify(arg)}\n${USAGE}`;
  }
  if (action === 'retry' && (id === undefined) === !all) return `retry takes one record id or --all\n${USAGE}`;
  return { action, json, ...options, ...(id === undefined ? {} : { id }) };
}

/** Runs the command; resolves to the process exit code (1 when a retried event failed again or an id was not found). */
export async function parkedEvents(args: readonly string[], io: Io): Promise<number> {
  const command = parseCommand(args);
  if (typeof command === 'string') {
    io.stderr.write(command);
    return 2;
  }
  const config = loadConfig(io.env);
  keepSqliteTempFilesIn(config.dataDir);
  const contexts = CONTEXTS.map(({ service }) => service.name);
  const reached = config.natsUrl ? await overNats(config, contexts) : await inProcess(config, io.env);
  try {
    if (command.action === 'list') {
      const records: ParkedEventRecord[] = [];
      for (const context of contexts) records.push(...((await reached.get(context)?.list(command)) ?? []));
      for (const r of records) io.stdout.write(command.json ? `${JSON.stringify(r)}\n` : `${[r.id, r.processor, r.streamId, r.eventType, r.workspaceId ?? '-', r.reason, `attempts=${r.attempts}`, r.lastFailedAt, r.error ?? ''].join('\t')}\n`);
      if (!command.json) io.stderr.write(`${records.length} parked event(s)\n`);
      return 0;
    }
    let found = false;
    let applied = 0;
    const failed: ParkedEventRecord[] = [];
    for (const context of contexts) {
      const outcome = await reached.get(context)?.retry(command);
      if (outcome === undefined) continue;
      found ||= outcome.found;
      applied += outcome.applied;
      failed.push(...outcome.failed);
    }
    if (command.id !== undefined && !found) {
      io.stderr.write(`no parked event ${command.id}\n`);
      return 1;
    }
    io.stdout.write(`${applied} event(s) applied\n`);
    for (const r of failed) io.stderr.write(`${r.id} ${r.processor} ${r.streamId}: failed again (attempts=${r.attempts}): ${r.error ?? ''}\n`);
    return failed.length === 0 ? 0 : 1;
  } finally {
    for (const r of reached.values()) await r.close();
  }
}

/** The running services, over NATS (distributed topology). */
async function overNats(config: LoreConfig, contexts: readonly string[]): Promise<Map<string, Reached>> {
  const transport: Transport = await openTransport(config, pino({ level: 'warn' }), 'distributed', 'parked-events');
  const timeoutMs = 60_000;
  const map = new Map<string, Reached>();
  contexts.forEach((context, i) => {
    map.set(context, {
      list: async (scope) => (await send(transport, parkedEventsListMessage(context), scope, { timeoutMs })).items,
      retry: (selector) => send(transport, parkedEventsRetryMessage(context), selector, { timeoutMs }),
      // The one transport closes with the last context.
      close: async () => (i === contexts.length - 1 ? transport.close() : undefined),
    });
  });
  return map;
}

/** Each context built over DATA_DIR in this process, processors not started (standalone, Lore stopped). */
async function inProcess(config: LoreConfig, env: NodeJS.ProcessEnv): Promise<Map<string, Reached>> {
  const logger = pino({ level: 'warn' });
  const feed = openEmbeddedEventFeed(config.dataDir, config.eventsStreamMaxAgeHours);
  const transport = journaledTransport(createInProcessTransport(), feed);
  const embeddings = openEmbeddingModels(env);
  const egress = openEgress({ allow: config.egressAllow, ...(config.egressProxyUrl === undefined ? {} : { proxyUrl: config.egressProxyUrl }) });
  const map = new Map<string, Reached>();
  for (const [i, { service }] of CONTEXTS.entries()) {
    const stores = await openContextStores(config, service.name, logger);
    // A retried reaction answers to nobody: nothing waits for other processors here.
    const readYourWrites = { settle: async () => undefined, settleReactor: async () => undefined, settleAllBut: async () => undefined, settleWithin: async () => undefined };
    const parts = service.build({ ...stores, embeddings, rerankers: NO_RERANKERS, chat: openChatModel(egress, env), transport, feed, egress, clock: systemClock, config: loadContextConfig(service, env), readYourWrites, log: logger });
    await parts.prepare?.();
    const processors = new EventProcessors(parts, stores.events, stores.documents, (name, error) => logger.warn({ processor: name, err: error }, 'retry failed'), stores.vectors, { feedCheckpoints: feed });
    await processors.loadParked();
    map.set(service.name, {
      list: async (scope) => processors.listParked(scope),
      retry: async (selector) => {
        const report = await processors.retryParked(selector);
        return report === null ? { found: false, applied: 0, failed: [] } : { found: true, applied: report.applied, failed: [...report.failed] };
      },
      close: async () => {
        await stores.close();
        if (i === CONTEXTS.length - 1) {
          await transport.close();
          await feed.close();
          await embeddings.close();
        }
      },
    });
  }
  return map;
}
