import { unwrap, type LoreHttp } from '../core/http';
import { offsetItems } from '../core/pagination';
import type { BodyOf, Filters, QueryOf, ReplyOf, Schemas } from '../core/types';

export type Connection = Schemas['ConnectionRecord'];
export type Integration = Schemas['IntegrationRecord'];
export type ProviderModel = Schemas['ProviderModelRecord'];
export type ConnectSession = Schemas['ConnectSessionRecord'];

/** The integration catalog and the provider models listing. */
export class Integrations {
  constructor(private readonly http: LoreHttp) {}

  list(query: QueryOf<'list_integrations'> = {}): Promise<Integration[]> {
    return unwrap(this.http.api.GET('/api/v1/integrations', { params: { query } }));
  }

  get(integrationId: string): Promise<Integration> {
    return unwrap(this.http.api.GET('/api/v1/integrations/{integration_id}', { params: { path: { integration_id: integrationId } } }));
  }

  /** A model provider's models with specifications and prices (open: no credential needed). */
  providerModels(providerId: string, query: QueryOf<'list_provider_models'> = {}): Promise<ProviderModel[]> {
    return unwrap(this.http.api.GET('/api/v1/integrations/providers/{provider_id}/models', { params: { path: { provider_id: providerId }, query } }));
  }
}

/** Connections to integrations, with sealed credentials (`/api/v1/connections`). */
export class Connections {
  constructor(private readonly http: LoreHttp) {}

  create(body: BodyOf<'create_connection'>): Promise<Connection> {
    return unwrap(this.http.api.POST('/api/v1/connections', { body }));
  }

  get(connectionId: string): Promise<Connection> {
    return unwrap(this.http.api.GET('/api/v1/connections/{connection_id}', { params: { path: { connection_id: connectionId } } }));
  }

  update(connectionId: string, body: BodyOf<'update_connection'>): Promise<Connection> {
    return unwrap(this.http.api.PATCH('/api/v1/connections/{connection_id}', { params: { path: { connection_id: connectionId } }, body }));
  }

  delete(connectionId: string): Promise<ReplyOf<'delete_connection'>> {
    return unwrap(this.http.api.DELETE('/api/v1/connections/{connection_id}', { params: { path: { connection_id: connectionId } } }));
  }

  /** Runs the integration's verification request and records the outcome in the connection's status. */
  test(connectionId: string): Promise<ReplyOf<'test_connection'>> {
    return unwrap(this.http.api.POST('/api/v1/connections/{connection_id}/test', { params: { path: { connection_id: connectionId } } }));
  }

  list(query: QueryOf<'list_connections'> = {}): Promise<ReplyOf<'list_connections'>> {
    return unwrap(this.http.api.GET('/api/v1/connections', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_connections'>> = {}): AsyncGenerator<Connection, void, undefined> {
    return offsetItems(async (skip) => {
      const page = await this.list({ ...filters, skip });
      return { items: page.data, hasMore: page.has_more };
    });
  }

  byIntegrationType(integrationType: string, query: QueryOf<'list_connections_by_integration_type'> = {}): Promise<ReplyOf<'list_connections_by_integration_type'>> {
    return unwrap(this.http.api.GET('/api/v1/connections/integrations/{integration_type}', { params: { path: { integration_type: integrationType as never }, query } }));
  }
}

/**
 * Connect sessions (`/api/v1/connect/sessions`): a one-time URL that runs a provider's OAuth
 * authorization for a user and makes (or reconnects) the connection. Send the user's browser to
 * `connect_url`; it comes back to your `redirect_url` with `status`, `session_id` and
 * `connection_id` or `error`; `get` tells the same for polling.
 */
export class ConnectSessions {
  constructor(private readonly http: LoreHttp) {}

  create(body: BodyOf<'create_connect_session'>): Promise<ConnectSession> {
    return unwrap(this.http.api.POST('/api/v1/connect/sessions', { body }));
  }

  get(sessionId: string, query: QueryOf<'get_connect_session'> = {}): Promise<ConnectSession> {
    return unwrap(this.http.api.GET('/api/v1/connect/sessions/{session_id}', { params: { path: { session_id: sessionId }, query } }));
  }
}
