import { useState, type FormEvent } from 'react';
import { SelectField, TextField } from '../../ui/fields';
import { anyOf } from '../shared/options';

export type MemoryType = 'user' | 'agent' | 'team' | 'workflow';

export interface MemoryQuery {
  /** Empty: the signed-in user's own memories. */
  readonly userId: string;
  readonly memoryType?: MemoryType;
  /** Case-insensitive substring of the text. */
  readonly contains?: string;
}

const TYPES = anyOf(['user', 'agent', 'team', 'workflow'] as const);

/** Whose memories, of which type, containing what: applied on submit, so typing does not refetch. */
export function MemoryFilters({ value, onChange }: { value: MemoryQuery; onChange: (query: MemoryQuery) => void }) {
  const [userId, setUserId] = useState(value.userId);
  const [memoryType, setMemoryType] = useState<MemoryType | ''>(value.memoryType ?? '');
  const [contains, setContains] = useState(value.contains ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange({
      userId: userId.trim(),
      ...(memoryType === '' ? {} : { memoryType }),
      ...(contains.trim() === '' ? {} : { contains: contains.trim() }),
    });
  };
  return (
    <form className="row" onSubmit={submit} aria-label="Whose memories">
      <TextField label="User" name="user_id" value={userId} onChange={setUserId} placeholder="yourself" autoComplete="off" hint="Empty: your own" />
      <SelectField label="Type" name="memory_type" value={memoryType} onChange={setMemoryType} options={TYPES} />
      <TextField label="Text contains" name="contains" value={contains} onChange={setContains} maxLength={1000} />
      <button type="submit" className="primary">Show memories</button>
    </form>
  );
}
