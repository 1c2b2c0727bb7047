import type { LoreClientOptions } from './http';

/** Where a client started without a base URL connects: a Lore on this machine (`npm start`). */
export const DEFAULT_BASE_URL = 'http://localhost:8080';

/** The variables a client reads, by the names the Python SDK reads too. */
export type LoreEnvironment = Readonly<Record<string, string | undefined>>;

/**
 * A client's connection settings from the environment, as both SDKs, the MCP server and the
 * examples read them: `LORE_API_KEY` (an API key or a JWT), `LORE_BASE_URL` (default
 * `http://localhost:8080`) and `LORE_WORKSPACE_ID` (optional). Blank values count as unset.
 * Throws without a key: a client without one gets nothing but 401s.
 */
export function optionsFromEnvironment(env: LoreEnvironment): Pick<LoreClientOptions, 'baseUrl' | 'token' | 'workspaceId'> {
  const token = setting(env, 'LORE_API_KEY');
  if (token === undefined) throw new Error('an API key or JWT is needed: set LORE_API_KEY (or pass token)');
  const workspaceId = setting(env, 'LORE_WORKSPACE_ID');
  return { baseUrl: setting(env, 'LORE_BASE_URL') ?? DEFAULT_BASE_URL, token, ...(workspaceId === undefined ? {} : { workspaceId }) };
}

function setting(env: LoreEnvironment, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}
