import type { EgressFactory } from './contract-fixture';
import { useHarness } from './contract-fixture';
import { describeLimitsContract } from './limits.contract';
import { describeRedirectContract } from './redirects.contract';
import { describeRequestContract } from './requests.contract';
import { describeSecretsContract } from './secrets.contract';

/**
 * The behaviour every Egress adapter must show (ARCHITECTURE §3.4), against real HTTP servers
 * on 127.0.0.1 and 127.0.0.2. The factory is called with the options each test needs (often
 * several times in one test); every egress and server is closed after its test. What needs
 * more than these options (a custom resolver, TLS) is the adapter's own spec's business.
 */
export function describeEgressContract(name: string, factory: EgressFactory): void {
  describe(`Egress contract: ${name}`, () => {
    const harness = useHarness(factory);
    describeRequestContract(harness);
    describeRedirectContract(harness);
    describeLimitsContract(harness);
    describeSecretsContract(harness);
  });
}
