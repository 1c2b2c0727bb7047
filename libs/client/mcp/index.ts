export { createLoreMcpServer } from './lore-mcp-server';
