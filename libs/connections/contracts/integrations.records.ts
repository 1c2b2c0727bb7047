import { z } from 'zod';

export const INTEGRATION_KINDS = ['integration', 'model', 'vector_store'] as const;
export const INTEGRATION_STATUSES = ['active', 'beta', 'deprecated', 'maintenance'] as const;
/** SPEC §2.3: what a connection to the integration is. */
export const INTEGRATION_TYPES = ['connectors', 'mcp', 'tool', 'model', 'custom', 'storage', 'api'] as const;

const JsonSchema = z.record(z.string(), z.unknown()).describe('A JSON Schema (draft 2020-12)');

/**
 * An authentication method. The catalog's JSON Schema (libs/connections/application/catalog)
 * is the strict definition; this names the fields every consumer relies on and keeps the rest.
 */
const AuthMethod = z.looseObject({
  id: z.string(),
  type: z.enum(['api_key', 'oauth2', 'basic', 'none']),
  label: z.string(),
  fields: JsonSchema.describe('The credential fields'),
  secret_fields: z.array(z.string()).describe('Fields that are secrets: stored sealed, never returned'),
  oauth2: z
    .looseObject({
      grant_type: z.enum(['authorization_code', 'client_credentials', 'jwt_bearer']),
      authorization_url: z.string().optional(),
      token_url: z.string().optional(),
      discovery_url: z.string().optional().describe('OAuth 2.0 authorization server metadata, when the endpoints are discovered (remote MCP servers)'),
      scopes: z.array(z.string()),
      scope_separator: z.enum([' ', ',']).optional().describe('How scopes are joined in the authorization request'),
      scope_param: z.string().optional().describe('The authorization parameter that carries the scopes, when not `scope` (Slack user tokens: `user_scope`)'),
      pkce: z.boolean().optional().describe('The connect flow sends a PKCE S256 challenge (RFC 7636)'),
      authorization_params: z.record(z.string(), z.string()).optional().describe('Extra query parameters of the authorization request'),
      token_response: z
        .looseObject({ token_type: z.string().describe('The token_type the answer carries (compared ignoring case)') })
        .optional()
        .describe('Where the tokens are in the code exchange answer: JSON Pointers (default: the RFC 6749 §5.1 top-level fields)'),
    })
    .optional(),
  verification: z
    .looseObject({
      method: z.enum(['GET', 'POST']),
      url: z.string(),
      headers: z.record(z.string(), z.string()).optional(),
      body: z.string().optional(),
      expect_status: z.array(z.number().int()),
    })
    .optional()
    .describe('The request that proves a credential; `{{config.x}}`, `{{credentials.y}}` and `{{token.access_token}}` are filled in'),
});

/** An entry of Lore's integration catalog (SPEC §2.8 shows none; modelled on Airbyte connector specs and Nango providers). */
export const IntegrationRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string(),
    type: z.enum(INTEGRATION_KINDS),
    integration_type: z.enum(INTEGRATION_TYPES),
    category: z.string(),
    categories: z.array(z.string()),
    status: z.enum(INTEGRATION_STATUSES),
    tags: z.array(z.string()),
    docs_url: z.string(),
    logo_url: z.string().nullable(),
    capabilities: z.array(z.string()),
    config_schema: JsonSchema.describe('The non-secret configuration a connection gives'),
    auth_methods: z.array(AuthMethod),
    default_auth_method_id: z.string(),
    deprecation: z
      .object({ deprecated_at: z.string(), sunset_at: z.string().nullable(), replacement_id: z.string().nullable(), reason: z.string() })
      .nullable(),
  })
  .meta({ id: 'IntegrationRecord' });
export type IntegrationRecord = z.infer<typeof IntegrationRecord>;
/** One of an entry's authentication methods. */
export type AuthMethod = IntegrationRecord['auth_methods'][number];

export const ProviderModelType = z.enum([
  'chat',
  'completion',
  'embedding',
  'image_generation',
  'image_edit',
  'video_generation',
  'audio_transcription',
  'audio_speech',
  'realtime',
  'rerank',
  'moderation',
  'ocr',
]);
export type ProviderModelType = z.infer<typeof ProviderModelType>;

const isoDate = z.string().regex(/^\d{4}-\d{2}(-\d{2})?$/);
const count = z.number().int().positive().nullable();
const usdPer1M = z.number().nonnegative().nullable();

/** A provider's model (SPEC §4.6), from the committed snapshot of litellm and models.dev data. */
export const ProviderModelRecord = z
  .object({
    id: z.string().min(1),
    provider_id: z.string().min(1),
    name: z.string().min(1),
    model_type: ProviderModelType,
    status: z.enum(['active', 'deprecated']),
    deprecation_date: isoDate.nullable(),
    specifications: z.object({
      context_window: count,
      max_input_tokens: count,
      max_output_tokens: count,
      embedding_dimensions: count,
      input_modalities: z.array(z.string()).nullable(),
      output_modalities: z.array(z.string()).nullable(),
      knowledge_cutoff: isoDate.nullable(),
      release_date: isoDate.nullable(),
    }),
    pricing: z.object({
      currency: z.literal('USD'),
      unit: z.literal('1M tokens'),
      input: usdPer1M,
      output: usdPer1M,
      cache_read: usdPer1M,
      cache_write: usdPer1M,
      batch_input: usdPer1M,
      batch_output: usdPer1M,
    }),
    capabilities: z.object({
      tool_calling: z.boolean(),
      parallel_tool_calls: z.boolean(),
      vision: z.boolean(),
      reasoning: z.boolean(),
      structured_output: z.boolean(),
      prompt_caching: z.boolean(),
    }),
    /** Keys in the upstream data sets, or "lore-curated" for hand-maintained entries (see curation_reason). */
    source: z.union([
      z.object({ litellm: z.string().nullable(), models_dev: z.string().nullable() }),
      z.literal('lore-curated'),
    ]),
    curation_reason: z.string().optional(),
  })
  .meta({ id: 'ProviderModelRecord' });
export type ProviderModelRecord = z.infer<typeof ProviderModelRecord>;

