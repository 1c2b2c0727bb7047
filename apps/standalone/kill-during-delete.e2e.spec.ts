import { runKillProbe } from './kill-probe';
import { describeWithModels } from '@lore/platform/embeddings/contract';

/**
 * Permanent deletion against a real `kill -9`: the probes (tools/probes/kill-during-delete.mjs
 * for memories, kill-during-knowledge-delete.mjs for contents and collections) start the
 * standalone bundle, fire a burst of DELETEs, kill the process a few milliseconds into it,
 * restart it on the same files and check that every acknowledged deletion stayed deleted and
 * that nothing deleted left its key, ciphertext or words on disk. The bundle is built into a
 * directory of its own, so this suite never races the other suites' builds of dist/.
 */
describe('kill -9 during deletes', () => {
  it('leaves every acknowledged deletion deleted and no deleted memory on disk', async () => {
    const output = await runKillProbe('tools/probes/kill-during-delete.mjs', { PROBE_ROUNDS: '3', PROBE_MEMORIES: '20' }, 90_000);
    expect(output).toMatch(/3 rounds x 20 memories: .* 0 acknowledged but readable, 0 gone but still on disk/);
  }, 120_000);
});

describeWithModels('kill -9 during knowledge deletes', (modelsDir) => {
  it('leaves every acknowledged deletion deleted and no word of a deleted content on disk', async () => {
    const output = await runKillProbe('tools/probes/kill-during-knowledge-delete.mjs', { PROBE_ROUNDS: '3', PROBE_CONTENTS: '6', MODELS_DIR: modelsDir }, 150_000);
    expect(output).toMatch(/3 rounds x 12 contents: .* 0 acknowledged but readable, 0 gone but still on disk/);
  }, 180_000);
});
