/** A labelled progress bar; without a value it is indeterminate (work whose size is unknown). */
export function Progress({ label, value, max = 1 }: { label: string; value?: number | undefined; max?: number }) {
  const percent = value === undefined ? undefined : Math.round((value / max) * 100);
  return (
    <div className="progress">
      <progress aria-label={label} max={max} {...(value === undefined ? {} : { value })} />
      <span className="small muted" aria-hidden="true">
        {label}
        {percent === undefined ? '' : ` ${percent}%`}
      </span>
    </div>
  );
}
