import { LoreApiError, type ValidationIssue } from '@lore/client';

/** The API's own message for a failure (its `detail`), or the browser's for a network failure. */
export function errorMessage(error: unknown): string {
  if (error instanceof LoreApiError) {
    const { detail } = error;
    if (typeof detail === 'string') return detail;
    if (Array.isArray(detail)) return detail.map((issue) => `${where(issue)}: ${issue.msg}`).join('; ');
    return [detail.message, ...detail.errors].join(' — ');
  }
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A 422's issues by the field they name (the last part of `loc`), for inline errors. */
export function fieldErrors(error: unknown): Record<string, string> {
  if (!(error instanceof LoreApiError)) return {};
  const byField: Record<string, string> = {};
  for (const issue of error.validationIssues) {
    const field = issue.loc.at(-1);
    if (field !== undefined) byField[String(field)] ??= issue.msg;
  }
  return byField;
}

function where(issue: ValidationIssue): string {
  return issue.loc.filter((part) => part !== 'body' && part !== 'query' && part !== 'path').join('.') || issue.loc.join('.');
}
