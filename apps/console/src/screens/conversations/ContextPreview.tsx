import { useState, type FormEvent } from 'react';
import type { ConversationContext } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';

/**
 * What the assistant's next turn would be given: recent messages, memories and passages
 * within a token budget, how much of the budget they use, and what was found but left out.
 */
export function ContextPreview({ conversationId, actingFor }: { conversationId: string; actingFor: { user_id?: string } }) {
  const lore = useLore();
  const [maxTokens, setMaxTokens] = useState('2000');
  const [query, setQuery] = useState('');
  const [context, setContext] = useState<ConversationContext | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const preview = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      setContext(await lore.conversations.context(conversationId, { max_tokens: Number(maxTokens), ...(query.trim() === '' ? {} : { query: query.trim() }) }, actingFor));
      setError(undefined);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="context-title">
      <h3 id="context-title">Next-turn context</h3>
      <form className="inline-form" onSubmit={(e) => void preview(e)}>
        <label>
          Token budget
          <input name="max_tokens" type="number" min={1} max={32000} required value={maxTokens} onChange={(e) => setMaxTokens(e.target.value)} />
        </label>
        <label>
          Query (default: the last user message)
          <input name="query" value={query} onChange={(e) => setQuery(e.target.value)} maxLength={10000} />
        </label>
        <button type="submit" disabled={busy}>Preview context</button>
      </form>
      <ErrorBanner error={error} />
      {context && <ContextSummary context={context} />}
    </section>
  );
}

function ContextSummary({ context }: { context: ConversationContext }) {
  const { omitted } = context;
  return (
    <div data-testid="context-preview">
      <label className="budget">
        {context.total_tokens} of {context.max_tokens} tokens used
        <progress max={context.max_tokens} value={Math.min(context.total_tokens, context.max_tokens)} />
      </label>
      <p>
        Included: {context.messages.length} messages, {context.memories.length} memories, {context.chunks.length} passages · tokenizer {context.tokenizer.model}
        {context.tokenizer.exact ? '' : ' (estimated)'} · {context.execution_time_ms.toFixed(0)} ms
      </p>
      <p data-testid="context-omitted">
        Omitted to stay within the budget: {omitted.messages} messages, {omitted.memories} memories, {omitted.chunks} passages
      </p>
      {context.warnings.length > 0 && (
        <ul className="warnings" aria-label="Warnings">
          {context.warnings.map((warning) => <li key={warning}>{warning}</li>)}
        </ul>
      )}
      <details>
        <summary>Context text</summary>
        <pre className="context-text">{context.context}</pre>
      </details>
    </div>
  );
}
