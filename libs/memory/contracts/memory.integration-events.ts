import { z } from 'zod';

/**
 * What downstream systems see on `<prefix>.events.memory.<type>.<workspace token>`
 * (scheme and de-duplication: `integrationEventSubject` in the transport port). Deliberately free of memory content:
 * subscribers fetch what they are allowed to read, and deletion stays permanent.
 */
export const MemoryIntegrationEvent = z.object({
  type: z.enum(['memory.created', 'memory.replaced', 'memory.invalidated', 'memory.reinstated', 'memory.deleted']),
  event_id: z.string(),
  occurred_at: z.string(),
  workspace_id: z.string(),
  user_id: z.string(),
  memory_id: z.string(),
  version: z.number().int(),
});
export type MemoryIntegrationEvent = z.infer<typeof MemoryIntegrationEvent>;
