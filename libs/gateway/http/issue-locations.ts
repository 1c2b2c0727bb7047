import type { z } from 'zod';
import { AppError, type ValidationIssue } from '@lore/platform/kernel';
import { declaresField, type RouteSpec } from '@lore/platform/http';

type Loc = ValidationIssue['loc'];
const API_PARTS = new Set(['body', 'query', 'path', 'header']);

/**
 * A service validates the message it receives and locates what it refuses in the message's own
 * terms (`["message","sizeBytes"]`, `["message","expiresAt"]`), and code a handler calls does
 * likewise (the file extraction: `["file"]`): names a caller of the HTTP API never sent. The
 * gateway re-locates such issues before answering: the route's own table first
 * (`issueLocations`, e.g. sizeBytes → the uploaded file), else the field's snake_case name
 * where the route takes it (path, query, body, upload fields), else the body as a whole.
 * Issues already located in the API's terms pass unchanged.
 */
export function inApiTerms(error: unknown, route: RouteSpec, upload: boolean): unknown {
  if (!(error instanceof AppError) || error.issues.length === 0 || error.issues.every((issue) => API_PARTS.has(String(issue.loc[0])))) return error;
  const issues = error.issues.map((issue) => (API_PARTS.has(String(issue.loc[0])) ? issue : { ...issue, loc: apiLocation(issue.loc, route, upload) }));
  const mapped = new AppError(error.code, error.message, issues);
  mapped.cause = error;
  return mapped;
}

function apiLocation(loc: Loc, route: RouteSpec, upload: boolean): Loc {
  const [field, ...rest] = loc[0] === 'message' ? loc.slice(1) : loc;
  if (typeof field !== 'string') return ['body'];
  const table = upload ? route.upload?.issueLocations : route.issueLocations;
  const declared = table?.[field];
  if (declared !== undefined) return [...declared];
  const name = snakeCase(field);
  if (takes(route.params, name)) return ['path', name, ...rest];
  if (takes(route.query, name)) return ['query', name, ...rest];
  if (takes(upload ? route.upload?.fields : route.body, name)) return ['body', name, ...rest];
  return ['body'];
}

function takes(schema: z.ZodType | undefined, name: string): boolean {
  return declaresField(schema, name);
}

function snakeCase(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}
