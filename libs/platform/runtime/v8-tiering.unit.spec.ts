import { spawnSync } from 'node:child_process';
import { SERVING_INTERRUPT_BUDGET, servingTieringFlag } from './v8-tiering';

describe('servingTieringFlag', () => {
  it('lowers the interrupt budget on V8 11 (Node 20)', () => {
    expect(servingTieringFlag('11.3.244.8-node.33', [])).toBe(`--interrupt-budget=${SERVING_INTERRUPT_BUDGET}`);
  });

  it.each(['12.4.254.21-node.33', '13.6.233.17-node.37', '10.2.154.26-node.26'])('sets nothing on V8 %s, which has no such flag or tiers otherwise', (version) => {
    expect(servingTieringFlag(version, [])).toBeNull();
  });

  it.each(['--interrupt-budget=100000', '--interrupt_budget=100000', '-interrupt-budget=100000'])("leaves an operator's own budget alone (%s)", (flag) => {
    expect(servingTieringFlag('11.3.244.8-node.33', ['--enable-source-maps', flag])).toBeNull();
    expect(servingTieringFlag('11.3.244.8-node.33', ['--interrupt-budget-for-feedback-allocation=940'])).not.toBeNull();
  });

  it('returns a flag this Node accepts, or none where it would not', () => {
    const flag = servingTieringFlag(process.versions.v8, []);
    // Node 24 rejects the flag outright; this checks the version test matches the running V8.
    const run = spawnSync(process.execPath, ['-e', `require('node:v8').setFlagsFromString(${JSON.stringify(flag ?? '--interrupt-budget=8192')})`], { encoding: 'utf8' });
    expect(run.stderr.includes('unrecognized flag')).toBe(flag === null);
  });
});
