import { defineEdge } from '@lore/platform/http';
import { knowledgeIntegrationEvents } from './knowledge.asyncapi';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { collectionRoutes } from './collections.routes';
import { contentRoutes } from './contents.routes';
import { chunkRoutes } from './chunks.routes';

/** Knowledge over HTTP: collections and search, contents, chunks. */
export const knowledgeEdge = defineEdge({
  name: 'knowledge',
  config: knowledgeConfig,
  events: [knowledgeIntegrationEvents],
  routes(config, { log }) {
    const messages = knowledgeMessages(config);
    return [...collectionRoutes(messages), ...contentRoutes(messages, config, log), ...chunkRoutes(messages)];
  },
});
