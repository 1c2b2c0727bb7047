import { useEffect, useState } from 'react';
import type { ReplyOf } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { buildConversationTree, countBranches } from './conversation-tree';
import { MessageTree } from './MessageTree';
import { ContextPreview } from './ContextPreview';

type Exported = ReplyOf<'export_conversation'>;

/** One conversation: its message tree with every branch, and the next turn's context. */
export function ConversationDetail({ conversationId, userId, onClose }: { conversationId: string; userId: string; onClose: () => void }) {
  const lore = useLore();
  const [exported, setExported] = useState<Exported | undefined>();
  const [error, setError] = useState<unknown>();
  const actingFor = userId === '' ? {} : { user_id: userId };

  useEffect(() => {
    let current = true;
    setExported(undefined);
    lore.conversations.export(conversationId, userId === '' ? {} : { user_id: userId }).then(
      (answer) => current && (setExported(answer), setError(undefined)),
      (failure: unknown) => current && setError(failure),
    );
    return () => {
      current = false;
    };
  }, [lore, conversationId, userId]);

  const roots = exported ? buildConversationTree(exported.messages, exported.active_path) : [];
  return (
    <section aria-labelledby="conversation-title" className="panel">
      <header className="panel-header">
        <h2 id="conversation-title">{exported?.conversation.title ?? 'Conversation'}</h2>
        <button type="button" onClick={onClose}>Close conversation</button>
      </header>
      <ErrorBanner error={error} />
      {exported === undefined && error === undefined && <p role="status">Loading…</p>}
      {exported && (
        <>
          <p className="muted">
            {exported.messages.length} messages · {countBranches(roots)} on other branches · active path of {exported.active_path.length}
          </p>
          <MessageTree roots={roots} />
          <ContextPreview conversationId={conversationId} actingFor={actingFor} />
        </>
      )}
    </section>
  );
}
