import { SelectField, TextField } from '../../ui/fields';
import { OPERATORS, type FilterRow, type Operator } from './filters';

const OPERATOR_OPTIONS = OPERATORS.map((op) => ({ value: op, label: op }));

/** Rows of conditions (all must hold), built into the search's `filters` (filters.ts). */
export function FilterBuilder({ rows, onChange }: { rows: readonly FilterRow[]; onChange: (rows: readonly FilterRow[]) => void }) {
  const set = (index: number, patch: Partial<FilterRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));
  return (
    <fieldset className="stack">
      <legend>Filters (all must hold)</legend>
      {rows.map((row, index) => (
        <div className="row" key={index}>
          <TextField label={`Field ${index + 1}`} name={`field-${index}`} hint="metadata key, content_id, source, tags or chunk_index" value={row.field} onChange={(field) => set(index, { field })} />
          <SelectField<Operator> label={`Operator ${index + 1}`} name={`operator-${index}`} value={row.operator} onChange={(operator) => set(index, { operator })} options={OPERATOR_OPTIONS} />
          <TextField label={`Value ${index + 1}`} name={`value-${index}`} hint="JSON or text; $in: comma-separated" value={row.value} onChange={(value) => set(index, { value })} />
          <button type="button" onClick={() => onChange(rows.filter((_, i) => i !== index))} aria-label={`Remove condition ${index + 1}`}>
            Remove
          </button>
        </div>
      ))}
      <div>
        <button type="button" onClick={() => onChange([...rows, { field: '', operator: '$eq', value: '' }])}>
          Add condition
        </button>
      </div>
    </fieldset>
  );
}
