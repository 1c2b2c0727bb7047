import { notFound, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { IntegrationMessages, IntegrationRecord } from '@lore/connections/contracts';
import { CATALOG } from './catalog/catalog-entries';
import { providerModels } from './provider-models/provider-models';

/** The catalog (SPEC §4.6) and the provider models: read-only reference data, shipped with Lore. */
export class IntegrationQueries {
  constructor(private readonly catalog: readonly IntegrationRecord[] = CATALOG) {}

  list(query: ValidRequestIn<IntegrationMessages, 'list'>): Promise<ReplyIn<IntegrationMessages, 'list'>> {
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

  get(query: ValidRequestIn<IntegrationMessages, 'get'>): Promise<ReplyIn<IntegrationMessages, 'get'>> {
    const entry = this.catalog.find((e) => e.id === query.integrationId);
    if (entry === undefined) return Promise.reject(notFound('Integration'));
    return Promise.resolve(entry);
  }

  providerModels(query: ValidRequestIn<IntegrationMessages, 'providerModels'>): Promise<ReplyIn<IntegrationMessages, 'providerModels'>> {
    const models = providerModels(query.providerId, query.modelType);
    if (models === null) return Promise.reject(notFound('Provider'));
    return Promise.resolve({ models });
  }
}
