import { reactingTo, reactionContext, requestMetadata, withRequestContext } from './request-context';

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
