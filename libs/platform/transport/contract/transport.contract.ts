import type { TransportFactory } from './contract-fixture';
import { describePublishSubscribeContract } from './publish-subscribe.contract';
import { describeRequestReplyContract } from './request-reply.contract';

/**
 * The behaviour every Transport adapter must show (ARCHITECTURE §3.4). The factory gives
 * each test a fresh transport; subjects are unique per test so a real server can be shared.
 */
export function describeTransportContract(name: string, factory: TransportFactory): void {
  describe(`${name} transport contract`, () => {
    describeRequestReplyContract(factory);
    describePublishSubscribeContract(factory);
  });
}
