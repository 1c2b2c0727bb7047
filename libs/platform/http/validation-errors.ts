import type { z } from 'zod';
import type { ErrorCode, ValidationIssue } from '@lore/platform/kernel';
import {
  customMessage,
  EXTRA_FORBIDDEN,
  invalidFormatMessage,
  invalidTypeMessage,
  invalidValueMessage,
  JSON_INVALID,
  jsonTooDeepMessage,
  MISSING,
  tooBigMessage,
  tooSmallMessage,
  type MsgAndType,
} from './pydantic-messages';
import { expectsIntegerAt, toLocSegment, valueAt, type LocSegment, type ValueLookup } from './zod-introspection';

/** The request part a validation issue points into; first element of every `loc`. */
export type RequestLocation = 'body' | 'query' | 'path' | 'header';

/** Where the issues being translated sit relative to the request part. */
interface Scope {
  readonly loc: readonly LocSegment[];
  /** Reads the offending value; zod issues do not carry it by default. */
  readonly lookup: (path: readonly PropertyKey[]) => ValueLookup;
  /** Decides int vs float wording; absent where the schema cannot be followed (record keys). */
  readonly isInteger: (path: readonly PropertyKey[]) => boolean;
}

/**
 * Translates zod issues into FastAPI's 422 `detail` entries (pydantic v2 wording).
 * `input` is the raw request part that was parsed, `schema` the schema that parsed it;
 * passing the schema lets "expected number" be reported as an integer error where the
 * schema wants an integer (e.g. `?limit=abc`), as pydantic would.
 */
export function zodIssuesToValidationIssues(
  issues: readonly z.core.$ZodIssue[],
  location: RequestLocation,
  input: unknown,
  schema?: z.core.$ZodType,
): ValidationIssue[] {
  const root: Scope = {
    loc: [location],
    lookup: (path) => valueAt(input, path),
    isInteger: (path) => expectsIntegerAt(schema, path),
  };
  return issues.flatMap((issue) => translate(issue, root));
}

function nested(scope: Scope, path: readonly PropertyKey[]): Scope {
  return {
    loc: [...scope.loc, ...path.map(toLocSegment)],
    lookup: (inner) => scope.lookup([...path, ...inner]),
    isInteger: (inner) => scope.isInteger([...path, ...inner]),
  };
}

function entry(scope: Scope, path: readonly PropertyKey[], what: MsgAndType): ValidationIssue {
  return { loc: [...scope.loc, ...path.map(toLocSegment)], msg: what.msg, type: what.type };
}

function translate(issue: z.core.$ZodIssue, scope: Scope): ValidationIssue[] {
  const path = issue.path;
  switch (issue.code) {
    case 'invalid_type':
      return [entry(scope, path, invalidTypeMessage(issue, scope.lookup(path), scope.isInteger(path)))];
    case 'too_small':
      return [entry(scope, path, tooSmallMessage(issue, scope.lookup(path)))];
    case 'too_big':
      return [entry(scope, path, tooBigMessage(issue, scope.lookup(path)))];
    case 'invalid_format':
      return [entry(scope, path, invalidFormatMessage(issue))];
    case 'not_multiple_of':
      return [entry(scope, path, { msg: `Input should be a multiple of ${issue.divisor}`, type: 'multiple_of' })];
    case 'unrecognized_keys':
      // pydantic reports one entry per extra key, with the key in `loc`.
      return issue.keys.map((key) => entry(scope, [...path, key], EXTRA_FORBIDDEN));
    case 'invalid_value':
      return [entry(scope, path, invalidValueMessage(issue, scope.lookup(path)))];
    case 'invalid_union':
      return translateUnion(issue, scope);
    case 'invalid_key': {
      // pydantic locates a bad dict key at `[..., key, '[key]']` and validates the key itself.
      const key = path[path.length - 1];
      const keyScope: Scope = {
        loc: [...scope.loc, ...path.map(toLocSegment), '[key]'],
        lookup: (inner) => (inner.length === 0 ? { present: true, value: key } : { present: false, value: undefined }),
        isInteger: () => false,
      };
      return issue.issues.flatMap((inner) => translate(inner, keyScope));
    }
    case 'invalid_element': {
      // Map/set elements are not addressable by path, so the value is unknown but present.
      const elementScope: Scope = {
        loc: [...scope.loc, ...path.map(toLocSegment)],
        lookup: () => ({ present: true, value: undefined }),
        isInteger: () => false,
      };
      return issue.issues.flatMap((inner) => translate(inner, elementScope));
    }
    case 'custom':
      return [entry(scope, path, customMessage(issue))];
    default:
      return [entry(scope, path, { msg: (issue as z.core.$ZodIssueBase).message, type: 'value_error' })];
  }
}

function translateUnion(issue: z.core.$ZodIssueInvalidUnion, scope: Scope): ValidationIssue[] {
  const path = issue.path;
  if (issue.discriminator !== undefined) {
    // zod points at the tag itself; pydantic points at the object carrying it.
    const objectPath = path[path.length - 1] === issue.discriminator ? path.slice(0, -1) : path;
    const tag = scope.lookup(path);
    if (!scope.lookup(objectPath).present) return [entry(scope, objectPath, MISSING)];
    if (!tag.present) {
      const msg = `Unable to extract tag using discriminator '${issue.discriminator}'`;
      return [entry(scope, objectPath, { msg, type: 'union_tag_not_found' })];
    }
    const expected = ('options' in issue ? (issue.options ?? []) : []).map((o) => `'${String(o)}'`).join(', ');
    const msg = `Input tag '${String(tag.value)}' found using '${issue.discriminator}' does not match any of the expected tags: ${expected}`;
    return [entry(scope, objectPath, { msg, type: 'union_tag_invalid' })];
  }
  if (!scope.lookup(path).present) return [entry(scope, path, MISSING)];
  const branch = closestBranch(issue.errors);
  if (!branch) return [entry(scope, path, { msg: issue.message, type: 'value_error' })];
  const inner = nested(scope, path);
  return branch.flatMap((branchIssue) => translate(branchIssue, inner));
}

/**
 * pydantic lists every failed union member; one coherent explanation is more useful,
 * so report the branch that got furthest into the value (deepest issue path, then fewest
 * issues). The `null` arm of a nullable union is never the interesting one.
 */
function closestBranch(branches: readonly (readonly z.core.$ZodIssue[])[]): readonly z.core.$ZodIssue[] | undefined {
  const isNullArm = (b: readonly z.core.$ZodIssue[]): boolean =>
    b.length === 1 && b[0]?.code === 'invalid_type' && (b[0].expected === 'null' || b[0].expected === 'undefined');
  const candidates = branches.some((b) => !isNullArm(b)) ? branches.filter((b) => !isNullArm(b)) : branches;
  let best: readonly z.core.$ZodIssue[] | undefined;
  let bestDepth = -1;
  for (const branch of candidates) {
    const depth = Math.max(0, ...branch.map((i) => i.path.length));
    if (depth > bestDepth || (depth === bestDepth && best !== undefined && branch.length < best.length)) {
      best = branch;
      bestDepth = depth;
    }
  }
  return best;
}

/**
 * FastAPI's answer to an unparsable JSON body (bad syntax or invalid UTF-8); `position` is
 * the character offset where reading failed.
 */
export function jsonDecodeIssue(position: number): ValidationIssue {
  return { loc: ['body', position], msg: JSON_INVALID.msg, type: JSON_INVALID.type };
}

/** A JSON body nested deeper than `maxDepth`; `position` is the offending bracket's offset. */
export function jsonNestingIssue(position: number, maxDepth: number): ValidationIssue {
  const { msg, type } = jsonTooDeepMessage(maxDepth);
  return { loc: ['body', position], msg, type };
}

export interface ValidationErrorBody {
  readonly detail: readonly ValidationIssue[];
}

export interface ErrorBody {
  readonly detail: string;
}

export function validationErrorBody(issues: readonly ValidationIssue[]): ValidationErrorBody {
  return { detail: issues };
}

export function errorBody(message: string): ErrorBody {
  return { detail: message };
}

const STATUS_BY_CODE: Readonly<Record<ErrorCode, number>> = {
  validation: 422,
  failed_checks: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  bad_gateway: 502,
  gateway_timeout: 504,
  internal: 500,
};

export function httpStatusOf(code: ErrorCode): number {
  return STATUS_BY_CODE[code];
}

