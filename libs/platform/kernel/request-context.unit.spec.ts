import { ROOT_CONTEXT, TraceFlags, context, propagation, trace, type Context, type TextMapPropagator } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { activeTraceHeaders, reactingTo, reactionContext, requestContextManager, requestMetadata, withRequestContext } from './request-context';

describe('request context', () => {
  it('is empty outside a served message or a reaction', () => {
    expect(requestMetadata()).toEqual({});
  });

  it('makes a served request id the correlation id too', () => {
    expect(withRequestContext({ requestId: 'req-1' }, requestMetadata)).toEqual({ requestId: 'req-1', correlationId: 'req-1' });
  });

  it("derives a reaction's context from the event that caused it", () => {
    const cause = { id: 'evt-1', metadata: { requestId: 'req-1', correlationId: 'req-1', actor: 'user:alice', workspaceId: 'ws', prevHash: 'x', hash: 'y' } };
    expect(reactingTo(cause, 'cascade', requestMetadata)).toEqual({ correlationId: 'req-1', causationId: 'evt-1', actor: 'user:alice', workspaceId: 'ws' });
  });

  it('starts a correlation at a cause that has none, and names the system actor when the cause names nobody', () => {
    expect(reactionContext({ id: 'evt-2', metadata: {} }, 'sweep')).toEqual({ causationId: 'evt-2', correlationId: 'evt-2', actor: 'system:sweep', workspaceId: undefined });
    expect(reactingTo(undefined, 'sweep', requestMetadata)).toEqual({ actor: 'system:sweep' });
  });

  it('replaces the context a reaction is started from, also across awaits and timers', async () => {
    const seen = await withRequestContext({ requestId: 'req-other' }, () =>
      reactingTo({ id: 'evt-3', metadata: { correlationId: 'corr' } }, 'r', async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        return new Promise((resolve) => setTimeout(() => resolve(requestMetadata()), 1));
      }),
    );
    expect(seen).toEqual({ correlationId: 'corr', causationId: 'evt-3', actor: 'system:r' });
  });
});

describe('activeTraceHeaders', () => {
  const injected: string[] = [];
  const w3c = new W3CTraceContextPropagator();
  // The W3C propagator, counting its injections.
  const counting: TextMapPropagator = {
    inject: (ctx, carrier, setter) => {
      injected.push(trace.getSpanContext(ctx)?.spanId ?? 'none');
      w3c.inject(ctx, carrier, setter);
    },
    extract: (ctx, carrier, getter) => w3c.extract(ctx, carrier, getter),
    fields: () => w3c.fields(),
  };
  const spanContext = (spanId: string): Context =>
    trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId: '0af7651916cd43dd8448eb211c80319c', spanId, traceFlags: TraceFlags.NONE }));

  beforeAll(() => {
    context.setGlobalContextManager(requestContextManager);
    propagation.setGlobalPropagator(counting);
  });
  afterAll(() => {
    propagation.disable();
    context.disable();
  });
  beforeEach(() => {
    injected.length = 0;
  });

  it("injects a context once while it stays the active one, and gives the propagator's headers", () => {
    const first = spanContext('b7ad6b7169203331');
    const headers = context.with(first, () => [activeTraceHeaders(), activeTraceHeaders(), requestMetadata().traceparent]);
    expect(headers[0]).toEqual({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00' });
    expect(headers[1]).toBe(headers[0]);
    expect(headers[2]).toBe('00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00');
    expect(injected).toEqual(['b7ad6b7169203331']);
    // Another context is injected afresh.
    expect(context.with(spanContext('00f067aa0ba902b7'), activeTraceHeaders)).toEqual({ traceparent: '00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-00' });
    expect(injected).toEqual(['b7ad6b7169203331', '00f067aa0ba902b7']);
  });

  it('injects the root context every time: it is never kept', () => {
    expect(activeTraceHeaders()).toEqual({});
    expect(activeTraceHeaders()).toEqual({});
    expect(injected).toEqual(['none', 'none']);
  });
});
