/**
 * Suites that need a server this machine may not run (EventStoreDB, MongoDB, NATS) are
 * enabled by an environment variable. Unset: the suite is skipped, and says so loudly.
 * Set: the suite runs and fails if the server is unreachable, never silently skips.
 */
export function serverUrl(variable: string, what: string): string | undefined {
  const url = process.env[variable];
  if (!url) {
    process.stderr.write(`\n[lore] SKIPPING ${what} suite: set ${variable} to run it against a real server.\n`);
    return undefined;
  }
  return url;
}

export function describeWithServer(variable: string, what: string, body: (url: string) => void): void {
  const url = serverUrl(variable, what);
  if (url === undefined) {
    describe.skip(`${what} (needs ${variable})`, () => {
      it('is skipped', () => undefined);
    });
    return;
  }
  describe(what, () => body(url));
}
