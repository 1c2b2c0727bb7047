import { randomBytes } from 'node:crypto';

/**
 * A contract suite's fixture, opened fresh around every test so that tests never share a
 * connection's state, and names unique to the run so that runs sharing a server never meet.
 */
export function useFreshFixture<F extends { cleanup(): Promise<void> }>(
  factory: () => Promise<F>,
  what: string,
): { readonly current: () => F; readonly uniqueName: (prefix?: string) => string } {
  const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let counter = 0;
  let fixture: F | undefined;

  beforeEach(async () => {
    fixture = await factory();
  });
  afterEach(async () => {
    const current = fixture;
    fixture = undefined;
    await current?.cleanup();
  });

  return {
    current: () => {
      if (!fixture) throw new Error(`the ${what} fixture is only available inside a test`);
      return fixture;
    },
    uniqueName: (prefix = 'c') => `${prefix}_${run}_${++counter}`,
  };
}
