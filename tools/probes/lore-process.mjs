// What the kill probes share: waiting for a started Lore to be ready, and for it to exit.

/** Resolves once `url`/ready answers 200; rejects if the process exits first or `tries` polls (50 ms apart) pass. */
export async function untilReady(child, url, tries) {
  for (let i = 0; i < tries; i++) {
    if (child.exitCode !== null) throw new Error(`Lore exited with ${child.exitCode} before it was ready`);
    try {
      if ((await fetch(`${url}/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('Lore did not become ready');
}

export function exited(child) {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((r) => child.once('exit', r));
}
