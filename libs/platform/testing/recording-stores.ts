import { requestMetadata } from '@lore/platform/kernel';
import type { ContextDefinition, ContextDeps } from '@lore/platform/cqrs';
import type { EventStore } from '@lore/platform/event-store/port';
import type { Reactor } from '@lore/platform/projections';

/** An append, or a stream read (`whole`: from its first event, all of it or its first page), and the served request it was made for (undefined: background work). */
export type RecordedStoreCall = ({ readonly op: 'append'; readonly streamId: string } | { readonly op: 'readStream'; readonly streamId: string; readonly whole: boolean }) & { readonly requestId: string | undefined };

/**
 * An event store that notes the appends and stream reads made through it, and otherwise passes
 * every call straight on: for tests of what a command must not do (store a secret for a refused
 * write, read a whole stream to answer a repeat). Not a mock: the store underneath is real.
 */
export function recordingEventStore(store: EventStore): { readonly store: EventStore; readonly calls: RecordedStoreCall[] } {
  const calls: RecordedStoreCall[] = [];
  return {
    calls,
    store: {
      append(streamId, events, expected) {
        calls.push({ op: 'append', streamId, requestId: requestMetadata().requestId });
        return store.append(streamId, events, expected);
      },
      readStream(streamId, options) {
        calls.push({ op: 'readStream', streamId, whole: (options?.fromRevision ?? 0) === 0 && (options?.maxCount === undefined || options.maxCount > 1), requestId: requestMetadata().requestId });
        return store.readStream(streamId, options);
      },
      readAll: (options) => store.readAll(options),
      countAfter: (options) => store.countAfter(options),
      subscribeToAll: (options, handler, onError) => store.subscribeToAll(options, handler, onError),
      deleteStream: (streamId) => store.deleteStream(streamId),
      headPosition: () => store.headPosition(),
      close: () => store.close(),
    },
  };
}

/**
 * The context built from `wrap(deps)`: its commands, queries and reactors use what `wrap` gives
 * (a recording store, say), while its host's processors and stores stay as they are.
 */
export function withContextDeps<C>(definition: ContextDefinition<C>, wrap: (deps: ContextDeps<C>) => ContextDeps<C>): ContextDefinition<C> {
  return { ...definition, build: (deps) => definition.build(wrap(deps)) };
}

/**
 * The context with its reactor `name` held back until `release()`: what it does stays pending
 * (an erasure after a crash, say), while everything else runs.
 */
export function holdingReactor<C>(definition: ContextDefinition<C>, name: string): { readonly definition: ContextDefinition<C>; release(): void } {
  let release = (): void => undefined;
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    release: () => release(),
    definition: {
      ...definition,
      build(deps) {
        const parts = definition.build(deps);
        const held = (reactor: Reactor): Reactor => ({
          ...reactor,
          async react(events) {
            await released;
            await reactor.react(events);
          },
        });
        const reactors = parts.reactors.map((reactor) => (reactor.name === name ? held(reactor) : reactor));
        return { ...parts, reactors };
      },
    },
  };
}
