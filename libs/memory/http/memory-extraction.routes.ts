import { z } from 'zod';
import { actingOwner, route, type HttpRoute } from '@lore/platform/http';
import { invalid } from '@lore/platform/kernel';
import { ExtractionReply, MEMORY_TYPES, MemoryDecision, MemoryRecord, type MemoryExtractionSettings, type MemoryMessages } from '@lore/memory/contracts';

const userId = z.string().min(1).max(255);

const ExtractBody = z.object({
  user_id: userId
    .optional()
    .describe("Whose memories. Required for API-key callers; a JWT caller may omit it (its own). Another user takes a workspace administrator, or a key one minted: 403 otherwise."),
  messages: z
    .array(
      z.object({
        id: z.string().min(1).max(200).nullish().describe('Named as a source of the decisions'),
        role: z.string().min(1).max(50).describe('`user`, `assistant`, …'),
        content: z.string().min(1).max(100_000),
      }),
    )
    .min(1)
    .max(1000)
    .optional()
    .describe('The messages to extract from; or give `conversation_id`'),
  conversation_id: z.string().min(1).max(200).optional().describe("Extract from this conversation's active path (its latest MEMORY_EXTRACTION_MAX_MESSAGES messages); the conversation must be the user's"),
  memory_type: z.enum(MEMORY_TYPES).default('user').describe('The type of the memories added'),
});

/** Memory extraction and the undo of its decisions (README, "Memory extraction"). */
export function extractionRoutes(messages: MemoryMessages, settings: MemoryExtractionSettings): HttpRoute[] {
  const common = { tags: ['Memories'], auth: true } as const;
  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/memories/extract',
      operationId: 'extract_memories',
      summary: 'Extract memories from messages or a conversation with the chat model',
      permission: ['memories', 'write'],
      // One model call for the facts and one per fact that needs deciding: longer than REQUEST_TIMEOUT_MS.
      timeoutMs: settings.timeoutMs,
      body: ExtractBody,
      status: 200,
      response: ExtractionReply,
      errors: [403, 404, 503],
      handle: async ({ body, scope, send }) => {
        if ((body.messages === undefined) === (body.conversation_id === undefined)) {
          throw invalid(['body', 'messages'], 'Give exactly one of `messages` and `conversation_id`', 'value_error');
        }
        return send(messages.extract, {
          ...actingOwner(scope, body.user_id, { keyMustName: true }),
          messages: body.messages?.map((m) => ({ id: m.id ?? null, role: m.role, content: m.content })) ?? null,
          conversationId: body.conversation_id ?? null,
          memoryType: body.memory_type,
        });
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/memories/:memory_id/decisions/:decision_id/undo',
      operationId: 'undo_memory_decision',
      summary: "Undo a memory's latest extraction decision (by a new event)",
      permission: ['memories', 'write'],
      params: z.object({ memory_id: z.string().min(1).max(100), decision_id: z.string().min(1).max(100) }),
      body: z.object({ user_id: userId.nullish() }).default({}),
      status: 200,
      response: z.object({ memory: MemoryRecord, decision: MemoryDecision }),
      errors: [403, 404, 409],
      handle: ({ params, body, scope, send }) =>
        send(messages.undoDecision, { ...actingOwner(scope, body.user_id, { keyMustName: true }), memoryId: params.memory_id, decisionId: params.decision_id }),
    }),
  ];
}
