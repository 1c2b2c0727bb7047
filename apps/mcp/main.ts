import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { LoreClient } from '@lore/client';
import { createLoreMcpServer } from '@lore/client/mcp';

/**
 * `npm run mcp`: Lore's MCP server on stdio, for assistants that start it as a subprocess
 * (Claude Desktop, IDE agents). It talks to a running Lore over HTTP with the API key it is
 * given, so the key's permissions and collections bound every tool. stdout carries the
 * protocol: anything else goes to stderr. Configured as the SDKs are: `LORE_API_KEY`,
 * `LORE_BASE_URL`, `LORE_WORKSPACE_ID`.
 */
const env = { ...process.env };
// `LORE_URL` was this server's name for the base URL before the SDKs' names were adopted; configurations written then still work.
if (env['LORE_BASE_URL'] === undefined && env['LORE_URL'] !== undefined) {
  process.stderr.write('lore-mcp: LORE_URL is read as LORE_BASE_URL; rename it, the old name will go\n');
  env['LORE_BASE_URL'] = env['LORE_URL'];
}
let lore: LoreClient;
try {
  lore = LoreClient.fromEnvironment(env);
} catch (error) {
  process.stderr.write(`lore-mcp: ${error instanceof Error ? error.message : String(error)}; LORE_BASE_URL defaults to http://localhost:8080\n`);
  process.exit(2);
}
createLoreMcpServer(lore)
  .connect(new StdioServerTransport())
  .catch((error: unknown) => {
    process.stderr.write(`lore-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
