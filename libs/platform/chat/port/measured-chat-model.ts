import { chatCalls, chatDuration, chatTokens, secondsSince } from '@lore/platform/telemetry';
import { isChatModelError } from './chat-model-errors';
import type { ChatModel } from './chat-model.port';

/**
 * A chat model whose calls are counted by outcome, timed, and whose tokens (the server's own
 * `usage`) are added up by kind: what the model costs, per provider and model.
 */
export function measuredChatModel(model: ChatModel): ChatModel {
  const labels = { provider: model.info.provider, model: model.info.model };
  return {
    info: model.info,
    async complete(request) {
      const started = process.hrtime.bigint();
      let outcome = 'ok';
      try {
        const answer = await model.complete(request);
        if (answer.usage !== null) {
          chatTokens.inc({ ...labels, kind: 'prompt' }, answer.usage.promptTokens);
          chatTokens.inc({ ...labels, kind: 'completion' }, answer.usage.completionTokens);
        }
        return answer;
      } catch (error) {
        outcome = isChatModelError(error) ? error.reason : 'error';
        throw error;
      } finally {
        chatCalls.inc({ ...labels, outcome });
        chatDuration.observe({ ...labels, outcome }, secondsSince(started));
      }
    },
  };
}
