import type { Conversation, LoreClient } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { PagedTable, type Column } from '../../ui/PagedTable';
import { cursorPage, usePaged, type Page } from '../../ui/paging';
import type { ConversationQuery } from './ConversationFilters';

const PAGE_SIZE = 20;

async function conversationPage(lore: LoreClient, query: ConversationQuery, cursor: string | null): Promise<Page<Conversation>> {
  const page = await lore.conversations.list({
    limit: PAGE_SIZE,
    ...(query.userId === '' ? {} : { user_id: query.userId }),
    ...(query.status === undefined ? {} : { status: query.status }),
    ...(query.title === undefined ? {} : { search: query.title }),
    ...(query.collectionId === undefined ? {} : { collection_id: query.collectionId }),
    ...(cursor === null ? {} : { cursor }),
  });
  return cursorPage(page.conversations, page.next_cursor, page.has_more);
}

/** Conversations, most recently updated first; a title opens the conversation. */
export function ConversationList({ query, shown, selected, onOpen }: { query: ConversationQuery; shown: number; selected: string | undefined; onOpen: (id: string) => void }) {
  const { lore } = useLore();
  const paged = usePaged((cursor) => conversationPage(lore, query, cursor), `${shown}/${JSON.stringify(query)}`);
  const columns: readonly Column<Conversation>[] = [
    {
      header: 'Title',
      cell: (c) => (
        <button type="button" className="link" onClick={() => onOpen(c.id)} aria-pressed={c.id === selected}>
          {c.title ?? c.id}
        </button>
      ),
    },
    { header: 'Status', cell: (c) => c.status },
    { header: 'Messages', cell: (c) => c.message_count },
    { header: 'Tags', cell: (c) => c.tags.join(', ') },
    { header: 'Last message', cell: (c) => (c.last_message_at === null ? '–' : new Date(c.last_message_at).toLocaleString()) },
  ];
  return <PagedTable caption="Conversations" what="conversations" columns={columns} paged={paged} rowKey={(c) => c.id} empty="No conversations match." />;
}
