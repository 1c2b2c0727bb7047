import { useState, type FormEvent } from 'react';
import type { ConversationContext } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { TextField } from '../../ui/fields';
import { Progress } from '../../ui/Progress';
import { useAction } from '../../ui/action';

/**
 * What the assistant's next turn would be given: recent messages, memories and passages
 * within a token budget, how much of the budget they use, and what was found but left out.
 */
export function ContextPreview({ conversationId, actingFor }: { conversationId: string; actingFor: { user_id?: string } }) {
  const { lore } = useLore();
  const [maxTokens, setMaxTokens] = useState('2000');
  const [query, setQuery] = useState('');
  const [context, setContext] = useState<ConversationContext | undefined>();
  const request = useAction();
  const preview = (event: FormEvent) => {
    event.preventDefault();
    void request.run(async () => setContext(await lore.conversations.context(conversationId, { max_tokens: Number(maxTokens), ...(query.trim() === '' ? {} : { query: query.trim() }) }, actingFor)));
  };

  return (
    <section aria-labelledby="context-title">
      <h3 id="context-title">Next-turn context</h3>
      <form className="row" onSubmit={preview}>
        <TextField label="Token budget" name="max_tokens" type="number" min={1} max={32000} required value={maxTokens} onChange={setMaxTokens} />
        <TextField label="Query" name="context_query" value={query} onChange={setQuery} maxLength={10000} hint="Empty: the last user message" />
        <button type="submit" disabled={request.busy}>Preview context</button>
      </form>
      <ErrorBanner error={request.error} />
      {context === undefined ? null : <ContextSummary context={context} />}
    </section>
  );
}

function ContextSummary({ context }: { context: ConversationContext }) {
  const { omitted } = context;
  const included = [
    ...context.messages.map((m) => ({ key: m.id, source: `message (${m.role})`, text: m.content, tokens: m.tokens })),
    ...context.memories.map((m) => ({ key: m.memory_id, source: 'memory', text: m.memory, tokens: m.tokens })),
    ...context.chunks.map((c) => ({ key: c.chunk_id, source: `passage (${c.content_name ?? c.content_id})`, text: c.content, tokens: c.tokens })),
  ];
  return (
    <div className="stack" data-testid="context-preview">
      <Progress label={`${context.total_tokens} of ${context.max_tokens} tokens used`} value={Math.min(context.total_tokens, context.max_tokens)} max={context.max_tokens} />
      <p>
        {context.total_tokens} of {context.max_tokens} tokens · tokenizer {context.tokenizer.model}
        {context.tokenizer.exact ? '' : ' (estimated)'} · {context.execution_time_ms.toFixed(0)} ms
      </p>
      <p data-testid="context-omitted">
        Omitted to stay within the budget: {omitted.messages} messages, {omitted.memories} memories, {omitted.chunks} passages
      </p>
      {context.warnings.length > 0 ? (
        <div className="banner info">
          {context.warnings.map((warning) => <p key={warning}>{warning}</p>)}
        </div>
      ) : null}
      <div className="table-scroll">
        <table>
          <caption>Included in the context</caption>
          <thead>
            <tr>
              <th scope="col">Source</th>
              <th scope="col">Text</th>
              <th scope="col">Tokens</th>
            </tr>
          </thead>
          <tbody>
            {included.map((item) => (
              <tr key={`${item.source}/${item.key}`}>
                <td data-label="Source">{item.source}</td>
                <td data-label="Text">{item.text.length > 200 ? `${item.text.slice(0, 200)}…` : item.text}</td>
                <td data-label="Tokens">{item.tokens}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details>
        <summary>Context text, as given to the model</summary>
        <pre>{context.context}</pre>
      </details>
    </div>
  );
}
