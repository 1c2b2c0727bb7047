import { z } from 'zod';
import { defineContext } from '@lore/platform/cqrs';
import { handle } from '@lore/platform/transport/port';
import { keysMessages } from '@lore/keys/contracts';
import { apiKeysProjection } from './api-keys.projection';
import { apiKeyEventsPublisher } from './api-key-events.publisher';
import { KeysCommands } from './keys.commands';
import { KeysQueries } from './keys.queries';
import { API_KEYS } from './api-keys.read-model';
import { apiKeyStreamId } from '@lore/keys/domain';

/** The API keys context: keys, their delegation limits, and authentication of key callers. */
export const keysContext = defineContext({
  name: 'keys',
  config: z.object({}),
  build(deps) {
    const queries = new KeysQueries(deps.documents, deps.keyring, deps.clock);
    const commands = new KeysCommands({ ...deps, queries });
    return {
      handlers: [
        handle(keysMessages.create, (c) => commands.create(c)),
        handle(keysMessages.revoke, (c) => commands.revoke(c)),
        handle(keysMessages.get, (q) => queries.get(q)),
        handle(keysMessages.list, (q) => queries.list(q)),
        handle(keysMessages.authenticate, (q) => queries.authenticate(q.token)),
      ],
      auditedAggregates: [{ collection: API_KEYS, streamId: apiKeyStreamId }],
      projections: [apiKeysProjection],
      reactors: [apiKeyEventsPublisher(deps.transport)],
      async prepare() {
        await deps.documents.collection(API_KEYS).ensureIndex(['workspace_id', 'created_at']);
        await deps.documents.collection(API_KEYS).ensureIndex(['parent_key_id']);
      },
    };
  },
});
