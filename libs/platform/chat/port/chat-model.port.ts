import type { z } from 'zod';

/**
 * A chat model that answers with JSON matching a schema (structured output). What Lore asks
 * of a model is always structured — facts and decisions, a summary — so that is the one
 * operation: free text would only be parsed again.
 */
export interface ChatMessage {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
}

export interface ChatModelInfo {
  readonly provider: 'openai-compatible';
  readonly model: string;
}

export interface StructuredOutput<T> {
  /** `json_schema.name` (letters, digits, `_`, `-`; at most 64). */
  readonly name: string;
  /** The JSON Schema sent to the model. */
  readonly jsonSchema: Record<string, unknown>;
  /** What the parsed answer must satisfy: a model that sends anything else has failed. */
  readonly schema: z.ZodType<T>;
}

export interface ChatRequest<T> {
  readonly messages: readonly ChatMessage[];
  readonly output: StructuredOutput<T>;
  /** Default 0: extraction and summaries should be as repeatable as the model allows. */
  readonly temperature?: number;
  readonly maxOutputTokens?: number;
}

/** Tokens as the server counted them (`usage`); null when the server sent none. */
export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

export interface ChatAnswer<T> {
  readonly value: T;
  /** The model that answered, as the server named it. */
  readonly model: string;
  readonly usage: ChatUsage | null;
}

export interface ChatModel {
  readonly info: ChatModelInfo;
  complete<T>(request: ChatRequest<T>): Promise<ChatAnswer<T>>;
}
