import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Why a piece of work runs: the HTTP request that caused it (its id, which is also the
 * correlation id of everything it leads to). Set around each message a context serves and
 * read where events are appended, so every stored event says which request it came from
 * without each command passing it along (audit, SPEC §6 left open; issue 9).
 */
export interface RequestContext {
  readonly requestId?: string | undefined;
  readonly correlationId?: string | undefined;
}

const storage = new AsyncLocalStorage<RequestContext>();

export function withRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

/** The metadata an event appended now carries about its cause: empty outside a served message. */
export function requestMetadata(): { requestId?: string; correlationId?: string } {
  const context = storage.getStore();
  if (context === undefined) return {};
  const correlationId = context.correlationId ?? context.requestId;
  return { ...(context.requestId === undefined ? {} : { requestId: context.requestId }), ...(correlationId === undefined ? {} : { correlationId }) };
}
