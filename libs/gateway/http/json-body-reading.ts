import secureJson from 'secure-json-parse';
import { AppError, MAX_JSON_DEPTH, nestingOverflowPosition, type ValidationIssue } from '@lore/platform/kernel';
import { jsonDecodeIssue, jsonNestingIssue, unkeepableJsonIssue } from '@lore/platform/http';
import { decodeJsonText, jsonSyntaxErrorPosition } from './json-text';

/** A JSON body read: its value, or the one issue that makes it a 422 (`validation`). */
export type JsonBodyReading = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly issue: ValidationIssue };

/**
 * The checks FastAPI's clients expect to end in a 422 `json_invalid`, in order: strict UTF-8, a
 * nesting depth bounded before parsing (MAX_JSON_DEPTH, the body's own object being level 1),
 * Fastify's own parser (secure-json-parse, refusing `__proto__` and `constructor.prototype`
 * keys), a syntax error named by its position, and a value that would not be kept as sent (an
 * integer past 2^53, a number past the double range, a lone surrogate). Pure, so a large body
 * can be read on another thread (json-body.worker.ts) with the same answers.
 */
export function readJsonBody(bytes: Uint8Array): JsonBodyReading {
  const decoded = decodeJsonText(bytes);
  if (!decoded.ok) return { ok: false, issue: jsonDecodeIssue(decoded.position) };
  const text = decoded.text;
  const tooDeep = nestingOverflowPosition(text, MAX_JSON_DEPTH);
  if (tooDeep >= 0) return { ok: false, issue: jsonNestingIssue(tooDeep, MAX_JSON_DEPTH) };
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    // Valid JSON that the prototype-poisoning guard refuses (`__proto__`, `constructor.prototype`).
    const poisoned = isJson(text);
    const issue = poisoned
      ? { loc: ['body', Math.max(0, text.search(/"(__proto__|constructor)"/))], msg: 'JSON objects may not use the keys __proto__ or constructor.prototype', type: 'json_invalid' }
      : jsonDecodeIssue(jsonSyntaxErrorPosition(text));
    return { ok: false, issue };
  }
  // Every field of every body: metadata, meta_data, config, tool_calls, attachments, texts.
  const unkeepable = unkeepableJsonIssue(text, value, ['body']);
  return unkeepable === null ? { ok: true, value } : { ok: false, issue: unkeepable };
}

/** The 422 a refused body answers. */
export function invalidJsonBody(issue: ValidationIssue): AppError {
  return new AppError('validation', issue.msg, [issue]);
}

/** Whether plain JSON.parse accepts the text (the guarded parser may still refuse it, see above). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
