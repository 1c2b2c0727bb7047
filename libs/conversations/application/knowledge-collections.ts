import { AppError, invalid, type RerankOutcome, type RerankRequest } from '@lore/platform/kernel';
import { send, type Transport } from '@lore/platform/transport/port';
import { knowledgeMessages, type KnowledgeConfig, type KnowledgeMessages, type SearchResult } from '@lore/knowledge/contracts';

/** Who asks, and the collections an API key limits it to (null: all of the workspace). */
interface KnowledgeCaller {
  readonly workspaceId: string;
  readonly actor: string;
  readonly collections: readonly string[] | null;
}

/**
 * What conversations ask the knowledge context, over the transport: whether the collections a
 * conversation names are there for the caller, and hybrid search in one of them. The message
 * set is built once per service (its schemas are not free to construct).
 */
export class KnowledgeCollections {
  private readonly messages: KnowledgeMessages;

  constructor(
    private readonly transport: Transport,
    config: KnowledgeConfig,
  ) {
    this.messages = knowledgeMessages(config);
  }

  /** Each collection must exist and be visible to the caller (its API key's scope), else 422 at its index. */
  async checkVisible(caller: KnowledgeCaller, collectionIds: readonly string[]): Promise<void> {
    await Promise.all(
      collectionIds.map(async (collectionId, index) => {
        try {
          await send(this.transport, this.messages.getCollection, { ...scope(caller), collectionId });
        } catch (error) {
          if (error instanceof AppError && error.code === 'not_found') throw invalid(['message', 'collectionIds', index], `Collection ${collectionId} not found`);
          throw error;
        }
      }),
    );
  }

  /** `rerank`: the context request's (undefined: the collection's default applies). */
  async search(caller: KnowledgeCaller, collectionId: string, query: string, maxResults: number, rerank?: RerankRequest): Promise<{ results: SearchResult[]; rerank: RerankOutcome | null }> {
    const reply = await send(this.transport, this.messages.search, { ...scope(caller), collectionId, query, searchType: 'hybrid', maxResults, rerank: rerank ?? null });
    return { results: reply.results, rerank: reply.rerank };
  }
}

function scope(caller: KnowledgeCaller) {
  return { workspaceId: caller.workspaceId, actor: caller.actor, collections: caller.collections === null ? null : [...caller.collections] };
}
