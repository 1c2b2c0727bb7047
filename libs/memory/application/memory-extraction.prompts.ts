import { z } from 'zod';
import type { ChatMessage, StructuredOutput } from '@lore/platform/chat/port';

/**
 * The prompts of memory extraction. Every decision records `EXTRACTION_PROMPT_VERSION`: change
 * the wording or the schemas and bump it, so that a memory's history says which prompt decided.
 */
export const EXTRACTION_PROMPT_VERSION = 'memory-extraction/v1';

const FACTS_SYSTEM = [
  'You extract durable facts about the user from a conversation, for their long-term memory.',
  "Keep only what the user's own messages state or clearly imply: preferences, biography, plans, relationships, constraints, corrections of earlier facts.",
  'Write each fact as one self-contained sentence about the user in the third person (e.g. "Lives in Berlin"), in the language of the conversation.',
  'Leave out facts about the assistant, guesses, small talk and anything only true for this moment.',
  'Answer {"facts": []} when nothing is worth remembering.',
].join('\n');

const DECISION_SYSTEM = [
  "You keep a user's long-term memory consistent. You get one new fact and the user's most similar existing memories, each with an id.",
  'Decide exactly one:',
  '- "add": the fact is new information, compatible with every memory listed (memory_id null, memory: the text to store).',
  '- "update": the fact refines, corrects or replaces one memory, which gets a new version (memory_id: that id, memory: its complete new text).',
  '- "invalidate": the fact says one memory is no longer true and needs no memory of its own (memory_id: that id, memory null).',
  '- "none": a memory already says this (memory_id: that id, memory null).',
  'A fact that contradicts a listed memory is never "add": update or invalidate that memory instead.',
  'Give a short reason.',
].join('\n');

const Facts = z.object({ facts: z.array(z.object({ fact: z.string().min(1), topics: z.array(z.string()) })) });
export type ProposedFacts = z.infer<typeof Facts>;

const Decision = z.object({
  decision: z.enum(['add', 'update', 'invalidate', 'none']),
  memory_id: z.string().nullable(),
  memory: z.string().nullable(),
  reason: z.string(),
});
export type ModelDecision = z.infer<typeof Decision>;

export const factsOutput: StructuredOutput<ProposedFacts> = { name: 'memory_facts', jsonSchema: jsonSchemaOf(Facts), schema: Facts };
export const decisionOutput: StructuredOutput<ModelDecision> = { name: 'memory_decision', jsonSchema: jsonSchemaOf(Decision), schema: Decision };

export function factsPrompt(messages: ReadonlyArray<{ readonly role: string; readonly content: string }>): ChatMessage[] {
  const transcript = messages.map((m) => `${m.role}: ${m.content}`).join('\n\n');
  return [
    { role: 'system', content: FACTS_SYSTEM },
    { role: 'user', content: transcript },
  ];
}

/** The candidates are named by short aliases (m1, m2, …): a model copies those more reliably than ids, and never sees a real id to invent. */
export function decisionPrompt(fact: string, candidates: ReadonlyArray<{ readonly alias: string; readonly memory: string }>): ChatMessage[] {
  return [
    { role: 'system', content: DECISION_SYSTEM },
    { role: 'user', content: JSON.stringify({ fact, memories: candidates.map((c) => ({ id: c.alias, memory: c.memory })) }) },
  ];
}

/** OpenAI's strict mode takes a plain schema object: no `$schema` key. */
function jsonSchemaOf(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema) as Record<string, unknown>;
  return rest;
}
