export { describeEgressContract } from './egress.contract';
export type { EgressContractOptions, EgressFactory, EgressUnderTest, Peer } from './contract-fixture';
