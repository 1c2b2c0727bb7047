import type { Conversation, LoreClient } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { usePages, type Page } from '../shared/use-pages';
import type { ConversationQuery } from './ConversationFilters';

const PAGE_SIZE = 20;

async function conversationPage(lore: LoreClient, query: ConversationQuery, cursor: string | undefined): Promise<Page<Conversation>> {
  const page = await lore.conversations.list({
    limit: PAGE_SIZE,
    ...(query.userId === '' ? {} : { user_id: query.userId }),
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.title === undefined ? {} : { search: query.title }),
    ...(query.collectionId === undefined ? {} : { collection_id: query.collectionId }),
    ...(cursor === undefined ? {} : { cursor }),
  });
  return { items: page.conversations, next: page.has_more && page.next_cursor ? page.next_cursor : undefined };
}

/** Conversations, most recently updated first. */
export function ConversationList({ query, selected, onOpen }: { query: ConversationQuery; selected: string | undefined; onOpen: (id: string) => void }) {
  const lore = useLore();
  const pages = usePages(JSON.stringify(query), (cursor) => conversationPage(lore, query, cursor));
  return (
    <div>
      <ErrorBanner error={pages.error} />
      <table className="data-table" aria-busy={pages.loading}>
        <caption>Conversations</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Status</th>
            <th scope="col">Messages</th>
            <th scope="col">Last message</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((conversation) => (
            <tr key={conversation.id}>
              <td>
                <button type="button" className="link" onClick={() => onOpen(conversation.id)} aria-pressed={conversation.id === selected}>
                  {conversation.title ?? conversation.id}
                </button>
              </td>
              <td>{conversation.status}</td>
              <td>{conversation.message_count}</td>
              <td>{conversation.last_message_at === null ? '–' : new Date(conversation.last_message_at).toLocaleString()}</td>
            </tr>
          ))}
          {!pages.loading && pages.items.length === 0 && (
            <tr>
              <td colSpan={4}>No conversations.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pages={pages} label="Conversations" />
    </div>
  );
}
