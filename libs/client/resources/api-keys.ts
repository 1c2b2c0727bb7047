import { unwrap, type LoreHttp } from '../core/http';
import { offsetItems } from '../core/pagination';
import type { BodyOf, Filters, QueryOf, ReplyOf, Schemas } from '../core/types';

export type ApiKey = Schemas['ApiKeyRecord'];

/** API keys of the workspace (`/api/v1/api-keys`). The secret is in the creation answer only. */
export class ApiKeys {
  constructor(private readonly http: LoreHttp) {}

  create(body: BodyOf<'create_api_key'>): Promise<ReplyOf<'create_api_key'>> {
    return unwrap(this.http.api.POST('/api/v1/api-keys', { body }));
  }

  get(keyId: string): Promise<ApiKey> {
    return unwrap(this.http.api.GET('/api/v1/api-keys/{key_id}', { params: { path: { key_id: keyId } } }));
  }

  /** Revokes the key and every key it created, before the answer. */
  revoke(keyId: string): Promise<ReplyOf<'revoke_api_key'>> {
    return unwrap(this.http.api.DELETE('/api/v1/api-keys/{key_id}', { params: { path: { key_id: keyId } } }));
  }

  list(query: QueryOf<'list_api_keys'> = {}): Promise<ReplyOf<'list_api_keys'>> {
    return unwrap(this.http.api.GET('/api/v1/api-keys', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_api_keys'>> = {}): AsyncGenerator<ApiKey, void, undefined> {
    return offsetItems(async (skip) => {
      const page = await this.list({ ...filters, skip });
      return { items: page.data, hasMore: page.has_more };
    });
  }
}
