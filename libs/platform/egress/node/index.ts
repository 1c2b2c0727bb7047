export { createNodeEgress } from './node-egress';
export type { EgressResolver, NodeEgressOptions } from './node-egress';
export { parseEgressAllowList } from './address-policy';
