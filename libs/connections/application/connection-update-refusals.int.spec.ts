import type { AppError } from '@lore/platform/kernel';
import { handleCommand } from '@lore/platform/cqrs';
import { send } from '@lore/platform/transport/port';
import { recordingEventStore, startContext, withContextDeps, type RecordedStoreCall, type RunningContext } from '@lore/platform/testing';
import { connectionMessages } from '@lore/connections/contracts';
import { CREDENTIAL_STREAM_PREFIX, connectionStreamId } from '@lore/connections/domain';
import { connectionsContext } from './connections.context';
import { connectionAggregate } from './connection.commands';

const owner = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };
const messages = connectionMessages({ maxConfigBytes: 16384, maxCredentialsBytes: 16384 });

/** A PATCH the connection refuses stores no secret: nothing is sealed, appended and erased again for it. */
describe('a refused change of credentials', () => {
  let running: RunningContext;
  let calls: RecordedStoreCall[] = [];
  beforeAll(async () => {
    running = await startContext(
      withContextDeps(connectionsContext, (deps) => {
        const recording = recordingEventStore(deps.events);
        calls = recording.calls;
        return { ...deps, events: recording.store };
      }),
    );
  });
  afterAll(() => running.stop());

  const credentialAppends = () => calls.filter((c) => c.op === 'append' && c.streamId.startsWith(CREDENTIAL_STREAM_PREFIX)).length;

  it('is a 409 while the connection is being tested, with no credential stored', async () => {
    const created = await send(running.transport, messages.create, { ...owner, integration: 'openai', label: 'under test', credentials: { api_key: 'sk-proj-firstfirstfirstfirstfirst' } });
    const stores = await running.openStores();
    try {
      // A test running (started by another request): the connection cannot be changed until it ends.
      await handleCommand(stores.events, connectionAggregate, connectionStreamId(created.id), { kind: 'start-test', workspaceId: 'ws', userId: 'alice', staleTestMs: 60_000, at: new Date().toISOString() });
    } finally {
      await stores.close();
    }
    const before = credentialAppends();
    const refused = (await send(running.transport, messages.update, { ...owner, connectionId: created.id, credentials: { api_key: 'sk-proj-secondsecondsecondsecond' } }).catch((e: unknown) => e)) as AppError;
    expect({ code: refused.code, message: refused.message }).toEqual({ code: 'conflict', message: 'The connection is being tested; try again when the test has finished' });
    expect(credentialAppends() - before).toBe(0);
    expect(await send(running.transport, messages.get, { ...owner, connectionId: created.id })).toMatchObject({ credential_id: created.credential_id });
  });
});
