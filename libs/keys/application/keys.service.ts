import { ProjectionSet } from '@lore/platform/projections';
import { messageHandler, type ContextServiceDeps, type MessageRoutes } from '@lore/platform/cqrs';
import { ApiKeyRef, AuthenticateApiKeyQuery, CreateApiKeyCommand, KeysSubjects, ListApiKeysQuery } from '@lore/keys/contracts';
import { apiKeysProjection } from './api-keys.projection';
import { apiKeyEventsPublisher } from './api-key-events.publisher';
import { KeysCommands } from './keys.commands';
import { KeysQueries } from './keys.queries';
import { API_KEYS } from './api-keys.read-model';

export type KeysServiceDeps = ContextServiceDeps;

export class KeysService {
  readonly projections: ProjectionSet;
  readonly queries: KeysQueries;
  readonly commands: KeysCommands;

  constructor(private readonly deps: KeysServiceDeps) {
    this.projections = new ProjectionSet([apiKeysProjection, apiKeyEventsPublisher(deps.transport)], deps.events, deps.documents, deps.onProjectionError);
    this.queries = new KeysQueries(deps.documents, deps.keyring, deps.clock);
    this.commands = new KeysCommands({ ...deps, projections: this.projections, queries: this.queries });
  }

  async start(): Promise<void> {
    await this.deps.documents.collection(API_KEYS).ensureIndex(['workspace_id', 'created_at']);
    await this.projections.start();
  }

  async stop(): Promise<void> {
    await this.projections.stop();
  }

  routes(): MessageRoutes {
    return {
      [KeysSubjects.create]: messageHandler(CreateApiKeyCommand, (c) => this.commands.create(c)),
      [KeysSubjects.revoke]: messageHandler(ApiKeyRef, (c) => this.commands.revoke(c)),
      [KeysSubjects.get]: messageHandler(ApiKeyRef, (q) => this.queries.get(q)),
      [KeysSubjects.list]: messageHandler(ListApiKeysQuery, (q) => this.queries.list(q)),
      [KeysSubjects.authenticate]: messageHandler(AuthenticateApiKeyQuery, (q) => this.queries.authenticate(q.token)),
    };
  }
}
