import { z } from 'zod';
import { envInt, envOptional } from '@lore/platform/kernel';
import type { Egress } from '@lore/platform/egress/port';
import { measuredChatModel, type ChatModel } from '@lore/platform/chat/port';
import { OpenAICompatibleChatModel } from '@lore/platform/chat/openai';

/** The chat model of a process, from its environment (the README lists the variables); none without CHAT_OPENAI_BASE_URL. */
const Env = z.object({
  CHAT_OPENAI_BASE_URL: envOptional.pipe(z.url().optional()),
  CHAT_OPENAI_API_KEY: envOptional,
  CHAT_OPENAI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  CHAT_OPENAI_AZURE_API_VERSION: envOptional,
  CHAT_TIMEOUT_MS: envInt(60_000),
  CHAT_MAX_RETRIES: z.coerce.number().int().min(0).max(10).default(4),
  CHAT_RETRY_BASE_DELAY_MS: envInt(500),
  CHAT_MAX_RETRY_AFTER_MS: envInt(60_000),
});

export function openChatModel(egress: Egress, env: NodeJS.ProcessEnv = process.env): ChatModel | null {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid chat model configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  if (e.CHAT_OPENAI_BASE_URL === undefined) return null;
  return measuredChatModel(
    new OpenAICompatibleChatModel(egress, {
      baseUrl: e.CHAT_OPENAI_BASE_URL,
      apiKey: e.CHAT_OPENAI_API_KEY,
      model: e.CHAT_OPENAI_MODEL,
      timeoutMs: e.CHAT_TIMEOUT_MS,
      retry: { maxRetries: e.CHAT_MAX_RETRIES, baseDelayMs: e.CHAT_RETRY_BASE_DELAY_MS, maxRetryAfterMs: e.CHAT_MAX_RETRY_AFTER_MS },
      ...(e.CHAT_OPENAI_AZURE_API_VERSION === undefined ? {} : { azure: { apiVersion: e.CHAT_OPENAI_AZURE_API_VERSION } }),
    }),
  );
}
