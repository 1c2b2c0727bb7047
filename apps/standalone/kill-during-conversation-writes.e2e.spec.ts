import { runKillProbe } from './kill-probe';

/**
 * Conversation writes against a real `kill -9`: tools/probes/kill-during-conversation-writes.mjs
 * starts the standalone bundle, fires a burst of appends, message deletions and conversation
 * deletions, kills the process in the middle of it, restarts it on the same files and checks
 * that acknowledged appends are readable, retries with their client_message_id make no
 * duplicate, every conversation's counters and active path agree with its messages, and
 * acknowledged deletions stayed deleted with none of their words left on disk. The bundle is
 * built into a directory of its own, so this suite never races the other suites' builds of dist/.
 * The kill comes up to 200 ms into the burst (a burst this size takes some 150–300 ms), so
 * that rounds cut it before, during and after the writes.
 */
describe('kill -9 during conversation writes', () => {
  it('keeps acknowledged appends, makes no duplicates, keeps conversations consistent and deletions erased', async () => {
    const output = await runKillProbe(
      'tools/probes/kill-during-conversation-writes.mjs',
      { PROBE_ROUNDS: '3', PROBE_CONVERSATIONS: '5', PROBE_APPENDS: '4', PROBE_KILL_MS: '200' },
      90_000,
    );
    expect(output).toMatch(
      /3 rounds x 5 conversations: .* 0 acknowledged appends lost, 0 retry violations, 0 inconsistent conversations, 0 acknowledged deletions readable, 0 deleted words still on disk, 0 other violations/,
    );
  }, 120_000);
});
