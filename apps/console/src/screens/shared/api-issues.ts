/** One failed check the API reported, with the field it names (path segments; empty: none). */
export interface LocatedIssue {
  readonly path: readonly string[];
  readonly message: string;
}

/**
 * Every failed check in a `LoreApiError`'s `detail`, located: a 422's issues
 * (`loc: ["body", "permissions", 2]`, the `body` dropped), a connection check's lines
 * (`"config.base_url: must be a valid URL (format uri)"`, path before the first `": "`), or a
 * plain sentence (no path).
 */
export function locatedIssues(detail: unknown): LocatedIssue[] {
  if (typeof detail === 'string') return [{ path: [], message: detail }];
  if (Array.isArray(detail)) {
    return detail.map((issue: { loc?: unknown[]; msg?: string }) => ({
      path: (issue.loc ?? []).map(String).filter((part, index) => !(index === 0 && (part === 'body' || part === 'query'))),
      message: issue.msg ?? 'is invalid',
    }));
  }
  if (typeof detail === 'object' && detail !== null && Array.isArray((detail as { errors?: unknown }).errors)) {
    return (detail as { errors: string[] }).errors.map((line) => {
      const colon = line.indexOf(': ');
      return colon < 0 ? { path: [], message: line } : { path: line.slice(0, colon).split('.'), message: line.slice(colon + 2) };
    });
  }
  const message = (detail as { message?: unknown } | null)?.message;
  return [{ path: [], message: typeof message === 'string' ? message : 'The request was refused' }];
}

/** The issues of an error by top-level field (`permissions`), the rest under `''`. */
export function issuesByField(error: unknown, fields: readonly string[]): Record<string, string[]> {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (detail === undefined) return {};
  const byField: Record<string, string[]> = {};
  for (const issue of locatedIssues(detail)) {
    const field = fields.includes(issue.path[0] ?? '') ? (issue.path[0] as string) : '';
    const where = issue.path.slice(field === '' ? 0 : 1).join('.');
    (byField[field] ??= []).push(where === '' ? issue.message : `${where}: ${issue.message}`);
  }
  return byField;
}

/** A form's API refusal split for display: each named field's messages joined, and whether any message names no field. */
export function formIssues(error: unknown, fields: readonly string[]): { of: (field: string) => string | undefined; unplaced: boolean } {
  const byField = issuesByField(error, fields);
  return { of: (field) => byField[field]?.join('; '), unplaced: byField[''] !== undefined };
}
