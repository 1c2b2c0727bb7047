import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { EgressRefused } from '@lore/platform/egress/port';
import { addressRange, describeRange, firstBlockedAddress } from './address-policy';
import type { AllowList } from './address-policy';
import { bareHost } from './url-rules';

/** Resolves a hostname to every address it has (dns.lookup semantics: /etc/hosts included). */
export type EgressResolver = (hostname: string) => Promise<ReadonlyArray<{ readonly address: string }>>;

export const systemResolve: EgressResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * Every address the URL's host has, all checked against the policy. Whatever connects next
 * (a socket, a proxy's CONNECT) is given these and never the hostname, so a second DNS answer
 * cannot slip another address in (DNS rebinding).
 */
export async function vet(url: URL, allow: AllowList, resolve: EgressResolver, deadline: number, timeoutMs: number): Promise<string[]> {
  const host = bareHost(url);
  const literal = isIP(host) !== 0;
  const addresses = literal ? [host] : (await resolveBefore(host, resolve, deadline, timeoutMs, url)).map((a) => a.address);
  if (addresses.length === 0) throw new EgressRefused('unreachable', `could not resolve ${host} (no addresses)`);
  const blocked = firstBlockedAddress(host, addresses, allow);
  if (blocked !== undefined) {
    const what = `${describeRange(addressRange(blocked))} address`;
    const subject = literal ? `${host} is ${what}` : `${host} resolves to ${blocked}, ${what}`;
    throw new EgressRefused('blocked_address', `refused: ${subject}; allow it with LORE_EGRESS_ALLOW`);
  }
  return addresses;
}

async function resolveBefore(host: string, resolve: EgressResolver, deadline: number, timeoutMs: number, url: URL) {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EgressRefused('timeout', `timed out: ${url.hostname} could not be resolved within ${timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([resolve(host), expired]);
  } catch (error) {
    if (error instanceof EgressRefused) throw error;
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'lookup failed';
    throw new EgressRefused('unreachable', `could not resolve ${host} (${code})`);
  } finally {
    clearTimeout(timer);
  }
}
