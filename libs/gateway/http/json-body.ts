import type { FastifyInstance } from 'fastify';
import { AppError } from '@lore/platform/kernel';
import { jsonDecodeIssue } from '@lore/platform/http';

/**
 * Fastify's JSON parser (with its prototype-poisoning guards), but a body that is not JSON
 * becomes the FastAPI-shaped 422 `json_invalid`, naming the position where parsing failed.
 */
export function useJsonBodyParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    // Fastify's default JSON parser is the callback form (it reports through the callback and
    // returns nothing); its declared type is the union with the promise form, hence `void`.
    void parse(request, typeof body === 'string' ? body : body.toString('utf8'), (error, value) => {
      if (error) {
        const position = /position (\d+)/.exec(error.message)?.[1];
        done(new AppError('validation', 'JSON decode error', [jsonDecodeIssue(position === undefined ? 0 : Number(position))]), undefined);
        return;
      }
      done(null, value);
    });
  });
}
