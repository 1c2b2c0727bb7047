import { useId, type InputHTMLAttributes, type ReactNode } from 'react';

interface FieldFrame {
  readonly label: string;
  /** The API's message for this field (a 422 issue), shown under it and announced. */
  readonly error?: string | undefined;
  readonly hint?: string | undefined;
}

/** Label, control, hint and inline error, wired with ids (aria-describedby, aria-invalid). */
function Frame({ label, error, hint, children }: FieldFrame & { children: (ids: { id: string; describedBy: string | undefined }) => ReactNode }) {
  const id = useId();
  const describedBy = [hint === undefined ? null : `${id}-hint`, error === undefined ? null : `${id}-error`].filter(Boolean).join(' ') || undefined;
  return (
    <div className={error === undefined ? 'field' : 'field invalid'}>
      <label htmlFor={id}>{label}</label>
      {children({ id, describedBy })}
      {hint === undefined ? null : (
        <span id={`${id}-hint`} className="small muted">
          {hint}
        </span>
      )}
      {error === undefined ? null : (
        <span id={`${id}-error`} className="field-error">
          {error}
        </span>
      )}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'value' | 'onChange' | 'id'>;

export function TextField({ label, error, hint, value, onChange, ...input }: FieldFrame & InputProps & { value: string; onChange: (value: string) => void }) {
  return (
    <Frame label={label} error={error} hint={hint}>
      {({ id, describedBy }) => <input id={id} aria-describedby={describedBy} aria-invalid={error !== undefined} value={value} onChange={(event) => onChange(event.target.value)} {...input} />}
    </Frame>
  );
}

export function TextAreaField({ label, error, hint, value, onChange, rows = 4, name }: FieldFrame & { value: string; onChange: (value: string) => void; rows?: number; name?: string }) {
  return (
    <Frame label={label} error={error} hint={hint}>
      {({ id, describedBy }) => <textarea id={id} name={name} rows={rows} aria-describedby={describedBy} aria-invalid={error !== undefined} value={value} onChange={(event) => onChange(event.target.value)} />}
    </Frame>
  );
}

export function SelectField<V extends string>({ label, error, hint, value, onChange, options, name }: FieldFrame & {
  value: V;
  onChange: (value: V) => void;
  options: readonly { value: V; label: string }[];
  name?: string;
}) {
  return (
    <Frame label={label} error={error} hint={hint}>
      {({ id, describedBy }) => (
        <select id={id} name={name} aria-describedby={describedBy} aria-invalid={error !== undefined} value={value} onChange={(event) => onChange(event.target.value as V)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </Frame>
  );
}

export function CheckboxField({ label, checked, onChange, name }: { label: string; checked: boolean; onChange: (checked: boolean) => void; name?: string }) {
  return (
    <label className="checkbox">
      <input type="checkbox" name={name} checked={checked} onChange={(event) => onChange(event.target.checked)} /> {label}
    </label>
  );
}
