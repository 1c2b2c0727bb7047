import type { FastifyInstance } from 'fastify';
import { AppError, MAX_JSON_DEPTH, nestingOverflowPosition, type ValidationIssue } from '@lore/platform/kernel';
import { jsonDecodeIssue, jsonNestingIssue, unkeepableJsonIssue } from '@lore/platform/http';
import { decodeJsonText, jsonSyntaxErrorPosition } from './json-text';

/**
 * Fastify's JSON parser (with its prototype-poisoning guards), fronted by the checks FastAPI's
 * clients expect to end in a 422 `json_invalid`: the body is read as bytes and decoded as
 * strict UTF-8, its nesting depth is bounded (MAX_JSON_DEPTH, the body's own object being
 * level 1) before parsing, so no recursive JSON walker downstream can overflow the stack, and a syntax error names the
 * position where parsing failed. An empty body is no body (`undefined`), whatever the method:
 * routes that need one then report the missing fields. A value that would not be kept as sent
 * (an integer past 2^53, a number past the double range, a lone surrogate) is a 422 naming it.
 */
export function useJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (bytes.length === 0) {
      done(null, undefined);
      return;
    }
    const decoded = decodeJsonText(bytes);
    if (!decoded.ok) {
      done(invalidJson(jsonDecodeIssue(decoded.position)), undefined);
      return;
    }
    const text = decoded.text;
    const tooDeep = nestingOverflowPosition(text, MAX_JSON_DEPTH);
    if (tooDeep >= 0) {
      done(invalidJson(jsonNestingIssue(tooDeep, MAX_JSON_DEPTH)), undefined);
      return;
    }
    // Fastify's default JSON parser is the callback form (it reports through the callback and
    // returns nothing); its declared type is the union with the promise form, hence `void`.
    void parse(request, text, (error, value) => {
      if (error) {
        // Valid JSON that Fastify's prototype-poisoning guard refuses (`__proto__`, `constructor.prototype`).
        const poisoned = isJson(text);
        const issue = poisoned
          ? { loc: ['body', Math.max(0, text.search(/"(__proto__|constructor)"/))], msg: 'JSON objects may not use the keys __proto__ or constructor.prototype', type: 'json_invalid' }
          : jsonDecodeIssue(jsonSyntaxErrorPosition(text));
        done(invalidJson(issue), undefined);
        return;
      }
      // Every field of every body: metadata, meta_data, config, tool_calls, attachments, texts.
      const unkeepable = unkeepableJsonIssue(text, value, ['body']);
      if (unkeepable !== null) {
        done(new AppError('validation', unkeepable.msg, [unkeepable]), undefined);
        return;
      }
      done(null, value);
    });
  });
}

function invalidJson(issue: ValidationIssue): AppError {
  return new AppError('validation', issue.msg, [issue]);
}

/** Whether plain JSON.parse accepts the text (Fastify's parser may still refuse it, see above). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
