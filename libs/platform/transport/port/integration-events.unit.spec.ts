import { integrationEventSubject, workspaceOfToken, workspaceToken } from './integration-events';

describe('integration event subjects', () => {
  it('is events.<context>.<type>.<workspace token>', () => {
    expect(integrationEventSubject({ type: 'memory.created', workspace_id: 'acme-prod' })).toBe('events.memory.created.acme-prod');
    expect(integrationEventSubject({ type: 'api_key.revoked', workspace_id: 'ws_1' })).toBe('events.api_key.revoked.ws%5F1');
  });

  it('refuses a type that is not two tokens', () => {
    expect(() => integrationEventSubject({ type: 'memory', workspace_id: 'w' })).toThrow();
    expect(() => integrationEventSubject({ type: 'memory.created.x', workspace_id: 'w' })).toThrow();
    expect(() => integrationEventSubject({ type: 'memory.*', workspace_id: 'w' })).toThrow();
  });

  it('encodes any workspace id as one safe token, reversibly and without collisions', () => {
    const ids = ['', '_', 'a.b', 'a b', '*', '>', 'a%2Eb', 'x\ty', 'ümlaut', '工作区', '😀', '$SYS', 'a~b', "(it's)!"];
    const tokens = ids.map(workspaceToken);
    for (const [i, token] of tokens.entries()) {
      expect(token).toMatch(/^[A-Za-z0-9%_-]+$/);
      expect(workspaceOfToken(token)).toBe(ids[i]);
    }
    expect(new Set(tokens).size).toBe(ids.length);
  });
});
