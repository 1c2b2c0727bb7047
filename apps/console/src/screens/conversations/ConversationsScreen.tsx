import { useState } from 'react';
import '../shared/screens.css';
import { ConversationFilters, type ConversationQuery } from './ConversationFilters';
import { ConversationList } from './ConversationList';
import { ConversationDetail } from './ConversationDetail';

/**
 * Conversations: a filtered list paged by cursor; one conversation as the tree of its
 * messages (every branch, the active path marked) and the context its next turn would get.
 */
export default function ConversationsScreen() {
  // Counts submissions: showing again with the same filters reads the list again.
  const [shown, setShown] = useState(0);
  const [query, setQuery] = useState<ConversationQuery>({ userId: '' });
  const [openId, setOpenId] = useState<string | undefined>();
  return (
    <section aria-labelledby="conversations-title" >
      <div className="page-head">
        <h1 id="conversations-title">Conversations</h1>
      </div>
      <ConversationFilters value={query} onChange={(next) => { setQuery(next);
          setShown((n) => n + 1); setOpenId(undefined); }} />
      <div>
        <ConversationList query={query} shown={shown} selected={openId} onOpen={setOpenId} />
        {openId !== undefined && <ConversationDetail key={openId} conversationId={openId} userId={query.userId} onClose={() => setOpenId(undefined)} />}
      </div>
    </section>
  );
}
