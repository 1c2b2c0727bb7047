import { runKillProbe } from './kill-probe';

/**
 * Permanent deletion against a real `kill -9`: tools/probes/kill-during-delete.mjs starts the
 * standalone bundle, fires a burst of DELETEs, kills the process a few milliseconds into it,
 * restarts it on the same files and checks that every acknowledged deletion stayed deleted
 * and that no deleted memory left its key or ciphertext on disk. The bundle is built into a
 * directory of its own, so this suite never races the other suites' builds of dist/.
 */
describe('kill -9 during deletes', () => {
  it('leaves every acknowledged deletion deleted and no deleted memory on disk', async () => {
    const output = await runKillProbe('tools/probes/kill-during-delete.mjs', { PROBE_ROUNDS: '3', PROBE_MEMORIES: '20' }, 90_000);
    expect(output).toMatch(/3 rounds x 20 memories: .* 0 acknowledged but readable, 0 gone but still on disk/);
  }, 120_000);
});
