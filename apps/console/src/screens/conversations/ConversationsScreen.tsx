import { useState } from 'react';
import { ConversationFilters, type ConversationQuery } from './ConversationFilters';
import { ConversationList } from './ConversationList';
import { ConversationDetail } from './ConversationDetail';

/**
 * Conversations: a filtered list paged by cursor; one conversation as the tree of its
 * messages (every branch, the active path marked) and the context its next turn would get.
 */
export default function ConversationsScreen() {
  const [query, setQuery] = useState<ConversationQuery>({ userId: '' });
  const [openId, setOpenId] = useState<string | undefined>();
  return (
    <section aria-labelledby="conversations-title" >
      <h1 id="conversations-title">Conversations</h1>
      <ConversationFilters value={query} onChange={(next) => { setQuery(next); setOpenId(undefined); }} />
      <div>
        <ConversationList query={query} selected={openId} onOpen={setOpenId} />
        {openId !== undefined && <ConversationDetail conversationId={openId} userId={query.userId} onClose={() => setOpenId(undefined)} />}
      </div>
    </section>
  );
}
