import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { LoreClient } from '@lore/client';
import { createLoreMcpServer } from '@lore/client/mcp';

/**
 * `npm run mcp`: Lore's MCP server on stdio, for assistants that start it as a subprocess
 * (Claude Desktop, IDE agents). It talks to a running Lore over HTTP with the API key it is
 * given, so the key's permissions and collections bound every tool. stdout carries the
 * protocol: anything else goes to stderr.
 */
const token = process.env['LORE_API_KEY'];
if (!token) {
  process.stderr.write('lore-mcp: set LORE_API_KEY (an API key, or a JWT) and LORE_URL (default http://localhost:8080)\n');
  process.exit(2);
}
const lore = new LoreClient({
  baseUrl: process.env['LORE_URL'] ?? 'http://localhost:8080',
  token,
  ...(process.env['LORE_WORKSPACE_ID'] ? { workspaceId: process.env['LORE_WORKSPACE_ID'] } : {}),
});
createLoreMcpServer(lore)
  .connect(new StdioServerTransport())
  .catch((error: unknown) => {
    process.stderr.write(`lore-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
