import { ROOT_CONTEXT, TraceFlags, context, trace, type Context, type ContextManager } from '@opentelemetry/api';
import { isActiveTrace } from './tracing';

/** A synchronous context manager: enough for spans made active around synchronous checks. */
function stackContextManager(): ContextManager {
  let active: Context = ROOT_CONTEXT;
  return {
    active: () => active,
    with(next, fn, thisArg, ...args) {
      const before = active;
      active = next;
      try {
        return fn.call(thisArg, ...args);
      } finally {
        active = before;
      }
    },
    bind: (_context, target) => target,
    enable() {
      return this;
    },
    disable() {
      return this;
    },
  };
}

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const SPAN_ID = 'b7ad6b7169203331';

describe('isActiveTrace', () => {
  beforeAll(() => context.setGlobalContextManager(stackContextManager()));
  afterAll(() => context.disable());

  const inSpan = <T>(work: () => T): T => context.with(trace.setSpan(ROOT_CONTEXT, trace.wrapSpanContext({ traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.NONE })), work);

  it('is true for the active span, with or without the flags field', () => {
    inSpan(() => {
      expect(isActiveTrace(`00-${TRACE_ID}-${SPAN_ID}-01`)).toBe(true);
      expect(isActiveTrace(`00-${TRACE_ID}-${SPAN_ID}`)).toBe(true);
      expect(isActiveTrace(`ff-${TRACE_ID}-${SPAN_ID}-00-extra`)).toBe(true);
    });
  });

  it('is false for another span or trace, a longer or shorter field, or no active span', () => {
    inSpan(() => {
      expect(isActiveTrace(`00-${TRACE_ID}-${'1'.repeat(16)}-01`)).toBe(false);
      expect(isActiveTrace(`00-${'1'.repeat(32)}-${SPAN_ID}-01`)).toBe(false);
      expect(isActiveTrace(`00-${TRACE_ID}-${SPAN_ID}0-01`)).toBe(false);
      expect(isActiveTrace(`00-${TRACE_ID}0-${SPAN_ID}-01`)).toBe(false);
      expect(isActiveTrace(`00-${TRACE_ID.slice(1)}-${SPAN_ID}-01`)).toBe(false);
      expect(isActiveTrace(`${TRACE_ID}${SPAN_ID}`)).toBe(false);
      expect(isActiveTrace('')).toBe(false);
    });
    expect(isActiveTrace(`00-${TRACE_ID}-${SPAN_ID}-01`)).toBe(false);
  });
});
