export { createNodeEgress } from './node-egress';
export { createProxyEgress, parseEgressProxyUrl } from './proxy-egress';
export type { ProxyEgressOptions } from './proxy-egress';
export { openEgress } from './open-egress';
export type { OpenEgressOptions } from './open-egress';
export type { NodeEgressOptions } from './vetted-egress';
export type { EgressResolver } from './vetting';
export { parseEgressAllowList } from './address-policy';
