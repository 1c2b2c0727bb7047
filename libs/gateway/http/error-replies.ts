import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '@lore/platform/kernel';
import { errorBody, httpStatusOf, validationErrorBody } from '@lore/platform/http';

/**
 * Every failure leaves the gateway in the documented shape: 422 as FastAPI's
 * `{detail: [{loc, msg, type}]}` (malformed JSON too), failed checks 400
 * `{detail: {message, errors: [...]}}` (SPEC §7), everything else `{detail: "..."}`.
 * 401 carries `WWW-Authenticate: Bearer`. Internal errors are logged, never shown.
 */
export function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (error instanceof AppError) {
    const status = httpStatusOf(error.code);
    if (status === 401) reply.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    if (error.retryAfterSeconds !== undefined) reply.header('Retry-After', String(Math.max(1, Math.ceil(error.retryAfterSeconds))));
    if (status === 422) return reply.code(422).send(validationErrorBody(error.issues.length > 0 ? error.issues : [{ loc: ['body'], msg: error.message, type: 'value_error' }]));
    if (error.code === 'failed_checks') return reply.code(400).send({ detail: { message: error.message, errors: error.checks } });
    if (status >= 500) request.log.warn({ code: error.code, err: error.message }, 'request failed');
    return reply.code(status).send(errorBody(error.message));
  }
  const fastifyError = error as Partial<FastifyError>;
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return reply.code(413).send(errorBody('Request body is too large'));
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return reply.code(415).send(errorBody('Content-Type must be application/json'));
    // The router's own errors, reported through Fastify's `frameworkErrors` option.
    case 'FST_ERR_BAD_URL':
      return reply.code(400).send(errorBody('Malformed URL: invalid percent-encoding'));
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return reply.code(414).send(errorBody('URI Too Long'));
    default:
      break;
  }
  // Nest wraps Fastify's own errors (413, 404, 415) in HttpExceptions with their status.
  const status = typeof (error as { getStatus?: unknown }).getStatus === 'function' ? (error as { getStatus(): number }).getStatus() : fastifyError.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = status === 404 ? 'Not Found' : status === 413 ? 'Request body is too large' : (fastifyError.message ?? 'Bad request');
    return reply.code(status).send(errorBody(message));
  }
  request.log.error({ err: error }, 'unhandled error');
  return reply.code(500).send(errorBody('Internal server error'));
}
