import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineMessage, type DomainEvent, type RecordedEvent } from '@lore/platform/kernel';
import { defineContext, handleCommand, type AggregateType } from '@lore/platform/cqrs';
import { route } from '@lore/platform/http';
import type { Projection } from '@lore/platform/projections';
import { handle } from '@lore/platform/transport/port';
import { loadConfig } from '@lore/platform/runtime';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { configureGateway } from '@lore/gateway';
import { call, mintJwt, type LoreUnderTest } from '@lore/gateway/e2e';

const NOTES = 'test-notes-v1';
const SECRET = 'parked-events-test-secret-0123456789';
/** Whether the notes projection can handle a poison note yet (the cause, fixed by the test). */
let cured = false;

type NoteEvent = DomainEvent<'notes.Noted' | 'notes.Poisoned', { readonly text: string }>;
const noteAggregate: AggregateType<{ text: string; poison: boolean }, null, NoteEvent> = {
  decider: { initialState: () => null, decide: (c) => [{ type: c.poison ? 'notes.Poisoned' : 'notes.Noted', data: { text: c.text } }], evolve: (s) => s },
  upcast: (e: RecordedEvent) => e as unknown as NoteEvent,
};

/** A read model that fails on a poison note until cured, as a store's identifier limit would. */
const notesProjection: Projection = {
  name: NOTES,
  streamPrefixes: ['note-'],
  collections: ['test_notes'],
  async handle(event, context) {
    if (event.type === 'notes.Poisoned' && !cured) throw new RangeError('identifier exceeds the index limit');
    const current = await context.get<{ id: string; count: number }>('test_notes', event.streamId);
    context.upsert('test_notes', { id: event.streamId, count: (current?.count ?? 0) + 1 });
  },
};

const note = defineMessage('notes.command.note', z.object({ workspaceId: z.string(), noteId: z.string(), text: z.string(), poison: z.boolean() }), z.object({ ok: z.boolean() }));

const notesContext = defineContext({
  name: 'notes',
  config: z.object({}),
  build: (deps) => ({
    handlers: [
      handle(note, async (request) => {
        const result = await handleCommand(deps.events, noteAggregate, `note-${request.noteId}`, { text: request.text, poison: request.poison }, { metadata: { workspaceId: request.workspaceId } });
        await deps.readYourWrites.settle(result.position);
        return { ok: true };
      }),
    ],
    projections: [notesProjection],
    reactors: [],
  }),
});

const notesRoutes = [
  route({
    method: 'POST', path: '/api/v1/notes/:note_id', operationId: 'note', summary: 'note', tags: ['notes'], auth: true,
    permission: ['memories', 'write'], params: z.object({ note_id: z.string() }), body: z.object({ text: z.string(), poison: z.boolean().default(false) }),
    status: 200, response: z.object({ ok: z.boolean() }),
    handle: ({ params, body, scope, send }) => send(note, { workspaceId: scope.workspaceId, noteId: params.note_id, text: body.text, poison: body.poison }),
  }),
];

/**
 * The gateway over a hosted context whose projection fails on one event: /ready, read-your-
 * writes over HTTP and the admin routes, with real HTTP, the in-process transport and SQLite.
 */
describe('parked events through the gateway', () => {
  let running: RunningContext;
  let app: FastifyInstance;
  let lore: LoreUnderTest;
  let dataDir: string;
  const token = (workspace: string): Promise<string> => mintJwt(SECRET, { sub: 'operator', workspace_id: workspace, roles: ['admin'] });

  beforeAll(async () => {
    cured = false;
    running = await startContext(notesContext);
    dataDir = mkdtempSync(join(tmpdir(), 'lore-gateway-'));
    const config = loadConfig({ DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET, LORE_MASTER_KEY: Buffer.alloc(32, 9).toString('base64') });
    app = fastify();
    configureGateway(app, { config, transport: running.transport, feed: running.feed, edges: [{ name: 'notes', routes: notesRoutes }], eventIdSecret: randomBytes(32) });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    lore = { url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`, jwtSecret: SECRET };
  });

  afterAll(async () => {
    await app.close();
    await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the poisoned write 503 naming the parked event, the stream at once after, other streams and workspaces 200; /ready degraded; admin lists and retries only the own workspace', async () => {
    const a = await token('ws-a');
    const b = await token('ws-b');
    expect((await call(lore, 'POST', '/api/v1/notes/a1', { token: a, body: { text: 'first' } })).status).toBe(200);

    const started = Date.now();
    const poisoned = await call(lore, 'POST', '/api/v1/notes/a1', { token: a, body: { text: 'bad', poison: true } });
    expect(poisoned.status).toBe(503);
    expect(poisoned.body.detail).toContain(`${NOTES} has parked event`);
    expect(Date.now() - started).toBeLessThan(5_000);

    const behind = Date.now();
    expect((await call(lore, 'POST', '/api/v1/notes/a1', { token: a, body: { text: 'later' } })).status).toBe(503);
    expect(Date.now() - behind).toBeLessThan(1_000);
    expect((await call(lore, 'POST', '/api/v1/notes/a2', { token: a, body: { text: 'other stream' } })).status).toBe(200);
    expect((await call(lore, 'POST', '/api/v1/notes/b1', { token: b, body: { text: 'other workspace' } })).status).toBe(200);

    const ready = await call(lore, 'GET', '/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ status: 'degraded', parked: { [NOTES]: 2 }, contexts: { notes: { ready: true, parked: { [NOTES]: 2 } } } });

    expect((await call(lore, 'GET', '/api/v1/admin/parked-events', { token: b })).body).toEqual({ items: [] });
    const listed = await call(lore, 'GET', '/api/v1/admin/parked-events', { token: a });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toMatchObject([
      { context: 'notes', processor: NOTES, stream_id: 'note-a1', event_type: 'notes.Poisoned', workspace_id: 'ws-a', reason: 'failed', attempts: 2, error: 'RangeError: identifier exceeds the index limit' },
      { stream_id: 'note-a1', reason: 'waiting-behind', attempts: 0 },
    ]);
    expect(JSON.stringify(listed.body)).not.toContain('bad');
    const id = listed.body.items[0].id as string;

    expect((await call(lore, 'POST', `/api/v1/admin/parked-events/${id}/retry`, { token: b })).status).toBe(404);
    const again = await call(lore, 'POST', `/api/v1/admin/parked-events/${id}/retry`, { token: a });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ applied: 0, failed: [{ id, attempts: 3 }] });

    cured = true;
    expect((await call(lore, 'POST', '/api/v1/admin/parked-events/retry', { token: b })).body).toEqual({ applied: 0, failed: [] });
    expect((await call(lore, 'POST', '/api/v1/admin/parked-events/retry', { token: a })).body).toEqual({ applied: 2, failed: [] });
    expect((await call(lore, 'GET', '/api/v1/admin/parked-events', { token: a })).body).toEqual({ items: [] });
    expect((await call(lore, 'GET', '/ready')).body.status).toBe('ready');
    expect((await call(lore, 'POST', '/api/v1/notes/a1', { token: a, body: { text: 'after the fix' } })).status).toBe(200);
  });
});
