import { z } from 'zod';

/** Published on `<prefix>.events.api_key.<type>.<workspace token>`: no secret, no hash. */
export const ApiKeyIntegrationEvent = z.object({
  type: z.enum(['api_key.created', 'api_key.revoked']),
  event_id: z.string(),
  occurred_at: z.string(),
  workspace_id: z.string(),
  key_id: z.string(),
});
export type ApiKeyIntegrationEvent = z.infer<typeof ApiKeyIntegrationEvent>;
