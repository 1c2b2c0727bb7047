import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { Loading } from '../../ui/states';
import { useAnswer } from '../shared/use-answer';
import { buildConversationTree, countBranches } from './conversation-tree';
import { MessageTree } from './MessageTree';
import { ContextPreview } from './ContextPreview';

/** One conversation: its message tree with every branch and the active path, and the next turn's context. */
export function ConversationDetail({ conversationId, userId, onClose }: { conversationId: string; userId: string; onClose: () => void }) {
  const { lore } = useLore();
  const actingFor = userId === '' ? {} : { user_id: userId };
  const exported = useAnswer(() => lore.conversations.export(conversationId, actingFor), `${conversationId}/${userId}`);
  const value = exported.value;
  const roots = value === undefined ? [] : buildConversationTree(value.messages, value.active_path);
  return (
    <section aria-labelledby="conversation-title" className="card">
      <div className="row">
        <h2 id="conversation-title">{value?.conversation.title ?? 'Conversation'}</h2>
        <button type="button" onClick={onClose}>Close conversation</button>
      </div>
      <ErrorBanner error={exported.error} />
      {exported.loading ? <Loading what="the conversation" /> : null}
      {value === undefined ? null : (
        <>
          <p className="muted">
            {value.messages.length} messages · {countBranches(roots)} on other branches · active path of {value.active_path.length}
          </p>
          <MessageTree roots={roots} />
          <ContextPreview conversationId={conversationId} actingFor={actingFor} />
        </>
      )}
    </section>
  );
}
