import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@lore/platform/kernel';
import { errorBody, httpStatusOf, jsonDecodeIssue, validationErrorBody } from '@lore/platform/http';

/**
 * Every failure leaves the gateway in the documented shape: 422 as FastAPI's
 * `{detail: [{loc, msg, type}]}` (malformed JSON too), everything else `{detail: "..."}`.
 * 401 carries `WWW-Authenticate: Bearer`. Internal errors are logged, never shown.
 */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof AppError) {
    const status = httpStatusOf(error.code);
    if (status === 401) reply.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    if (status === 422) return reply.code(422).send(validationErrorBody(error.issues.length > 0 ? error.issues : [{ loc: ['body'], msg: error.message, type: 'value_error' }]));
    if (status >= 500) request.log.warn({ code: error.code, err: error.message }, 'request failed');
    return reply.code(status).send(errorBody(error.message));
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return reply.code(422).send(validationErrorBody([jsonDecodeIssue(jsonErrorPosition(fastifyError.message))]));
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply.code(413).send(errorBody('Request body is too large'));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply.code(415).send(errorBody('Content-Type must be application/json'));
    default:
      break;
  }
  if (error instanceof SyntaxError) return reply.code(422).send(validationErrorBody([jsonDecodeIssue(jsonErrorPosition(error.message))]));
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return reply.code(fastifyError.statusCode).send(errorBody(fastifyError.message ?? 'Bad request'));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(errorBody('Internal server error'));
}

function jsonErrorPosition(message: string | undefined): number {
  const match = /position (\d+)/.exec(message ?? '');
  return match?.[1] === undefined ? 0 : Number(match[1]);
}
