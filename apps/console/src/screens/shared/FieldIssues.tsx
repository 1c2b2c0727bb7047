/** What the API refused about one field, under the field (linked to it by `aria-describedby`). */
export function FieldIssues({ id, issues }: { id: string; issues: readonly string[] | undefined }) {
  if (issues === undefined || issues.length === 0) return null;
  return (
    <ul id={id} className="field-issues" role="alert">
      {issues.map((issue) => <li key={issue}>{issue}</li>)}
    </ul>
  );
}
