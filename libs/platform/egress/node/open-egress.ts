import type { Egress } from '@lore/platform/egress/port';
import { createNodeEgress } from './node-egress';
import { createProxyEgress } from './proxy-egress';
import type { NodeEgressOptions } from './vetted-egress';

export interface OpenEgressOptions extends NodeEgressOptions {
  /** Parsed `LORE_EGRESS_ALLOW` entries (see `parseEgressAllowList`). */
  readonly allow: readonly string[];
  /** `LORE_EGRESS_PROXY`: when set (not blank), all traffic leaves through this forward proxy. */
  readonly proxyUrl?: string;
}

/**
 * The egress a host runs with, chosen by configuration: through the operator's forward proxy
 * when one is set, else straight from this process. Both apply the same local vetting.
 */
export function openEgress(options: OpenEgressOptions): Egress {
  const { proxyUrl, ...rest } = options;
  return proxyUrl === undefined || proxyUrl.trim() === '' ? createNodeEgress(rest) : createProxyEgress({ ...rest, proxyUrl });
}
