import { useState, type FormEvent } from 'react';

export interface MemoryQuery {
  /** Empty: the signed-in user's own memories. */
  readonly userId: string;
  readonly memoryType?: 'user' | 'agent' | 'team' | 'workflow';
  /** Case-insensitive substring of the text. */
  readonly contains?: string;
}

/** Whose memories, of which type, containing what: applied on submit so typing does not refetch. */
export function MemoryFilters({ value, onChange }: { value: MemoryQuery; onChange: (query: MemoryQuery) => void }) {
  const [userId, setUserId] = useState(value.userId);
  const [memoryType, setMemoryType] = useState(value.memoryType ?? '');
  const [contains, setContains] = useState(value.contains ?? '');
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onChange({
      userId: userId.trim(),
      ...(memoryType === '' ? {} : { memoryType: memoryType as MemoryQuery['memoryType'] }),
      ...(contains.trim() === '' ? {} : { contains: contains.trim() }),
    });
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Whose memories">
      <label>
        User
        <input name="user_id" value={userId} onChange={(e) => setUserId(e.target.value)} placeholder="yourself" autoComplete="off" />
      </label>
      <label>
        Type
        <select name="memory_type" value={memoryType} onChange={(e) => setMemoryType(e.target.value)}>
          <option value="">any</option>
          <option value="user">user</option>
          <option value="agent">agent</option>
          <option value="team">team</option>
          <option value="workflow">workflow</option>
        </select>
      </label>
      <label>
        Text contains
        <input name="contains" value={contains} onChange={(e) => setContains(e.target.value)} maxLength={1000} />
      </label>
      <button type="submit">Show memories</button>
    </form>
  );
}
