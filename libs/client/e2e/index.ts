export * from './sdk-fixtures';
export * from './sdk-knowledge.suite';
export * from './sdk-conversations.suite';
export * from './sdk-platform.suite';
export * from './mcp.suite';
