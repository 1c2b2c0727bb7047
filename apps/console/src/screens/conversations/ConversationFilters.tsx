import { useState, type FormEvent } from 'react';

export interface ConversationQuery {
  /** Empty: the signed-in user's own conversations. */
  readonly userId: string;
  readonly status?: 'active' | 'archived';
  /** Case-insensitive substring of the title. */
  readonly title?: string;
  readonly collectionId?: string;
}

/** Owner, status, title and collection filters, applied on submit. */
export function ConversationFilters({ value, onChange }: { value: ConversationQuery; onChange: (query: ConversationQuery) => void }) {
  const [userId, setUserId] = useState(value.userId);
  const [status, setStatus] = useState(value.status ?? '');
  const [title, setTitle] = useState(value.title ?? '');
  const [collectionId, setCollectionId] = useState(value.collectionId ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange({
      userId: userId.trim(),
      ...(status === '' ? {} : { status: status as 'active' | 'archived' }),
      ...(title.trim() === '' ? {} : { title: title.trim() }),
      ...(collectionId.trim() === '' ? {} : { collectionId: collectionId.trim() }),
    });
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Conversation filters">
      <label>
        User
        <input name="user_id" value={userId} onChange={(e) => setUserId(e.target.value)} placeholder="yourself" autoComplete="off" />
      </label>
      <label>
        Status
        <select name="status" value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">any</option>
          <option value="active">active</option>
          <option value="archived">archived</option>
        </select>
      </label>
      <label>
        Title contains
        <input name="title" value={title} onChange={(e) => setTitle(e.target.value)} maxLength={500} />
      </label>
      <label>
        Collection
        <input name="collection_id" value={collectionId} onChange={(e) => setCollectionId(e.target.value)} autoComplete="off" />
      </label>
      <button type="submit">Show conversations</button>
    </form>
  );
}
