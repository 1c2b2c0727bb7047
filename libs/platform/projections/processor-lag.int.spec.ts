import { randomUUID } from 'node:crypto';
import { START, type Position } from '@lore/platform/kernel';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import type { EventStore } from '@lore/platform/event-store/port';
import { processorLag } from './processor-lag';
import type { Processor } from './projection';

const reactor = (name: string, streamPrefixes: string[]): Processor => ({ name, streamPrefixes, react: async () => undefined });

describe('processorLag', () => {
  let events: EventStore;

  beforeEach(() => {
    events = openSqliteEventStore({ path: ':memory:' });
  });
  afterEach(async () => {
    await events.close();
  });

  const append = async (streamId: string, count: number): Promise<Position> =>
    (await events.append(streamId, Array.from({ length: count }, () => ({ id: randomUUID(), type: 'test.Happened', data: {} })), 'any')).position;

  it('counts the events of a processor\'s own streams after its checkpoint, not the rest of the log', async () => {
    const firstMemory = await append('memory-1', 2);
    await append('memory-2', 3);
    await append('conversation-1', 7);
    const lag = await processorLag(
      [
        { processor: reactor('memory.behind', ['memory-']), checkpoint: firstMemory },
        { processor: reactor('memory.new', ['memory-']), checkpoint: START },
        { processor: reactor('conversations.caught-up', ['conversation-']), checkpoint: await events.headPosition() },
        // Its last event is behind the head, but the rest of the log is not its own.
        { processor: reactor('memory.caught-up', ['memory-']), checkpoint: (await events.readAll({ streamPrefixes: ['memory-'] })).at(-1)?.position ?? START },
      ],
      events,
    );
    expect(lag).toEqual({ 'memory.behind': 3, 'memory.new': 5, 'conversations.caught-up': 0, 'memory.caught-up': 0 });
  });
});
