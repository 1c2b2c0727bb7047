import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { z } from 'zod';
import { defineMessage, type Decider, type DomainEvent } from '@lore/platform/kernel';
import { defineContext, handleCommand, type AggregateType } from '@lore/platform/cqrs';
import { handle, send, type Transport } from '@lore/platform/transport/port';
import { connectNatsTransport } from '@lore/platform/transport/nats';
import { openEmbeddedEventFeed } from '@lore/platform/transport/sqlite-feed';
import { loadConfig } from '@lore/platform/runtime';
import { describeWithServer } from '@lore/platform/testing';
import { ContextHost } from './context-host';

type Bumped = DomainEvent<'racer.Bumped', { to: number }>;
const decider: Decider<{ kind: 'bump' }, { value: number }, Bumped> = {
  initialState: () => ({ value: 0 }),
  decide: (_command, state) => [{ type: 'racer.Bumped', data: { to: state.value + 1 } }],
  evolve: (_state, event) => ({ value: event.data.to }),
};
const racer: AggregateType<{ kind: 'bump' }, { value: number }, Bumped> = { name: 'racer', decider, upcast: (recorded) => recorded as unknown as Bumped };

const BUDGET_MS = 1_500;
const WRITERS = 32;
/**
 * How long each decision takes: a loaded machine (the 32 replaces of one memory, on 2
 * busy cores) stretches every read → decide → append window. The writers take turns on the
 * stream, and 32 turns of this take longer than the budget.
 */
const SLOW_DECIDE_MS = 80;

/**
 * Issue 16: a service behind real NATS answers a burst of writes to one stream within the
 * caller's budget (the request carries it; a command whose turn would come too late, or whose
 * retries would run past it, stops in time), 200 or 409, never the caller's own timeout.
 */
describeWithServer('NATS_URL', 'request deadline over NATS', (url) => {
  const prefix = `deadline${randomBytes(4).toString('hex')}`;
  const bump = defineMessage(`${prefix}.racer.command.bump`, z.object({}), z.object({ value: z.number() }));
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-deadline-'));
  let server: Transport;
  let client: Transport;
  let host: ContextHost<Record<string, never>>;

  beforeAll(async () => {
    const env = { DATA_DIR: dataDir, LORE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') };
    const config = loadConfig(env);
    server = await connectNatsTransport({ url, name: 'deadline-server' });
    client = await connectNatsTransport({ url, name: 'deadline-client' });
    const definition = defineContext({
      name: 'racer',
      config: z.object({}),
      build: ({ events }) => ({
        handlers: [
          handle(bump, async () => {
            const handled = await handleCommand(
              events,
              racer,
              'racer-1',
              async () => {
                await new Promise((resolve) => setTimeout(resolve, SLOW_DECIDE_MS));
                return { kind: 'bump' as const };
              },
              { retries: 20 },
            );
            return { value: handled.state.value };
          }),
        ],
        projections: [],
        reactors: [],
      }),
    });
    host = new ContextHost(definition, { config, transport: server, feed: openEmbeddedEventFeed(dataDir, 1), logger: pino({ level: 'silent' }), env });
    await host.start();
  });

  afterAll(async () => {
    await host.stop();
    await client.close();
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`answers ${WRITERS} concurrent writes to one stream within the budget: each succeeds or conflicts, none times out`, async () => {
    const started = Date.now();
    const outcomes = await Promise.allSettled(Array.from({ length: WRITERS }, () => send(client, bump, {}, { timeoutMs: BUDGET_MS })));
    const codes = outcomes.map((o) => (o.status === 'fulfilled' ? 'ok' : (o.reason as { code?: string }).code));
    expect(codes.filter((c) => c !== 'ok' && c !== 'conflict')).toEqual([]);
    expect(codes).toContain('ok');
    expect(codes).toContain('conflict'); // the burst cannot all fit in the budget: the losers are told so in time
    expect(Date.now() - started).toBeLessThan(BUDGET_MS + 500);
    // Every success is one stored bump: nothing lost, nothing doubled.
    const values = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value.value] : []));
    expect(new Set(values).size).toBe(values.length);
  });
});
