/**
 * `@lore/client`: Lore's TypeScript SDK for Node ≥ 20 and browsers (fetch, WebCrypto and
 * WHATWG streams only). Types are generated from `/openapi.json` (generated/, by
 * openapi-typescript); everything else here is written by hand.
 */
export { LoreClient } from './lore-client';
export type { LoreClientOptions } from './core/http';
export { DEFAULT_BASE_URL, optionsFromEnvironment, type LoreEnvironment } from './core/environment';
export { LoreApiError, LoreProcessingError, type ErrorDetail, type ValidationIssue } from './core/errors';
export { DEFAULT_RETRY_POLICY, type RetryPolicy } from './core/retry';
export { toArray } from './core/pagination';
export { verifyWebhook, WebhookVerificationError, type WebhookPayload, type VerifyOptions } from './core/webhooks';
export type { Schemas, QueryOf, BodyOf, ReplyOf } from './core/types';
export type { ApiKey } from './resources/api-keys';
export type { Collection, Content, Chunk, SearchResponse, UploadRequest } from './resources/knowledge';
export type { ConnectSession, Connection, Integration, ProviderModel } from './resources/connections';
export type { Conversation, ConversationContext, Message, ActingFor } from './resources/conversations';
export type { Memory } from './resources/memories';
export type { Webhook, WebhookDelivery } from './resources/webhooks';
export type { AuditVerifyReport } from './resources/audit';
export type { IntegrationEvent, StreamedEvent, EventStreamOptions } from './resources/events';
export type { components, operations, paths } from './generated/openapi';
