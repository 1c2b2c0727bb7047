import { z } from 'zod';
import { AppError, defineMessage, newEventId } from '@lore/platform/kernel';
import { defineContext } from '@lore/platform/cqrs';
import { handle, send } from '@lore/platform/transport/port';
import { startContext, until, type RunningContext } from '@lore/platform/testing';

const ERASER = 'things.eraser';
const write = defineMessage('things.command.write', z.object({ id: z.string() }), z.object({ ok: z.boolean() }));
/** Waits for the eraser to pass the stream's last event, as a repeated deletion does: it appended nothing itself. */
const follow = defineMessage('things.command.follow', z.object({ id: z.string(), named: z.boolean() }), z.object({ ok: z.boolean() }));

/** A reactor that fails for good on `thing-bad` (the runner parks that stream's event) and passes the rest. */
const things = defineContext({
  name: 'things',
  config: z.object({}),
  build: ({ events, readYourWrites }) => ({
    handlers: [
      handle(write, async ({ id }) => {
        await events.append(`thing-${id}`, [{ id: newEventId(), type: 'things.Written', data: {}, metadata: {} }], 'any');
        return { ok: true };
      }),
      handle(follow, async ({ id, named }) => {
        const last = (await events.readStream(`thing-${id}`)).at(-1);
        await readYourWrites.settleReactor(ERASER, last?.position ?? null, 1_000, named ? [`thing-${id}`] : []);
        return { ok: true };
      }),
    ],
    projections: [],
    reactors: [
      {
        name: ERASER,
        streamPrefixes: ['thing-'],
        async react(batch) {
          if (batch.some((event) => event.streamId === 'thing-bad')) throw new RangeError('a failure of its own');
        },
      },
    ],
  }),
});

/**
 * A wait on a reactor answers 503 at once when the stream it names has its event parked there,
 * though the caller appended nothing: a repeated deletion must not answer "erased" (200) for an
 * erasure that was set aside and never happened.
 */
describe('settleReactor with the streams named', () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(things, {});
  });
  afterAll(async () => {
    await running.stop();
  });

  it('answers 503 for a named stream whose event is parked, where the unnamed wait resolves past it', async () => {
    await send(running.transport, write, { id: 'bad' });
    await send(running.transport, write, { id: 'good' });
    // Once parked, the runner's checkpoint is past the event: a wait that does not name the stream resolves.
    await until(() => send(running.transport, follow, { id: 'bad', named: false }).then(() => true, () => false), (done) => done, 20_000);
    const named = await send(running.transport, follow, { id: 'bad', named: true }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(named).toBeInstanceOf(AppError);
    expect((named as AppError).code).toBe('unavailable');
    expect((named as AppError).message).toMatch(/parked/);
    expect(await send(running.transport, follow, { id: 'good', named: true })).toEqual({ ok: true });
  });
});
