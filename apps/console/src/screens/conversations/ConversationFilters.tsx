import { useState, type FormEvent } from 'react';
import { SelectField, TextField } from '../../ui/fields';
import { anyOf } from '../shared/options';

export interface ConversationQuery {
  /** Empty: the signed-in user's own conversations. */
  readonly userId: string;
  readonly status?: 'active' | 'archived';
  /** Case-insensitive substring of the title. */
  readonly title?: string;
  readonly collectionId?: string;
}

const STATUSES = anyOf(['active', 'archived'] as const);

/** Owner, status, title and collection filters, applied on submit. */
export function ConversationFilters({ value, onChange }: { value: ConversationQuery; onChange: (query: ConversationQuery) => void }) {
  const [userId, setUserId] = useState(value.userId);
  const [status, setStatus] = useState<'' | 'active' | 'archived'>(value.status ?? '');
  const [title, setTitle] = useState(value.title ?? '');
  const [collectionId, setCollectionId] = useState(value.collectionId ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange({
      userId: userId.trim(),
      ...(status === '' ? {} : { status }),
      ...(title.trim() === '' ? {} : { title: title.trim() }),
      ...(collectionId.trim() === '' ? {} : { collectionId: collectionId.trim() }),
    });
  };
  return (
    <form className="row" onSubmit={submit} aria-label="Conversation filters">
      <TextField label="User" name="user_id" value={userId} onChange={setUserId} placeholder="yourself" autoComplete="off" hint="Empty: your own" />
      <SelectField label="Status" name="status" value={status} onChange={setStatus} options={STATUSES} />
      <TextField label="Title contains" name="title" value={title} onChange={setTitle} maxLength={500} />
      <TextField label="Collection" name="collection_id" value={collectionId} onChange={setCollectionId} autoComplete="off" />
      <button type="submit" className="primary">Show conversations</button>
    </form>
  );
}
