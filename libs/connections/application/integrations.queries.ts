import { notFound, type ReplyOf, type ValidRequestOf } from '@lore/platform/kernel';
import type { integrationMessages, IntegrationRecord } from '@lore/connections/contracts';
import { CATALOG } from './catalog/catalog-entries';
import { providerModels } from './provider-models/provider-models';

type Messages = typeof integrationMessages;
type Request<K extends keyof Messages> = ValidRequestOf<Messages[K]>;
type Reply<K extends keyof Messages> = ReplyOf<Messages[K]>;

/** The catalog (SPEC §4.6) and the provider models: read-only reference data, shipped with Lore. */
export class IntegrationQueries {
  constructor(private readonly catalog: readonly IntegrationRecord[] = CATALOG) {}

  list(query: Request<'list'>): Promise<Reply<'list'>> {
    const tags = query.tags ?? [];
    const items = this.catalog.filter(
      (entry) =>
        (query.type === 'all' || entry.type === query.type) &&
        (query.status === undefined || entry.status === query.status) &&
        (query.category === undefined || entry.categories.includes(query.category)) &&
        tags.every((tag) => entry.tags.includes(tag)),
    );
    return Promise.resolve({ items });
  }

  get(query: Request<'get'>): Promise<Reply<'get'>> {
    const entry = this.catalog.find((e) => e.id === query.integrationId);
    if (entry === undefined) return Promise.reject(notFound('Integration'));
    return Promise.resolve(entry);
  }

  providerModels(query: Request<'providerModels'>): Promise<Reply<'providerModels'>> {
    const models = providerModels(query.providerId, query.modelType);
    if (models === null) return Promise.reject(notFound('Provider'));
    return Promise.resolve({ models });
  }
}
