import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError, type ValidationIssue } from '@lore/platform/kernel';
import { AcceptedReply, EventStreamReply, FileReply, RedirectReply, TextReply, integerQueryFields, strictQueryIntegers, zodIssuesToValidationIssues, type Caller, type HttpRoute, type RequestScope, type Send } from '@lore/platform/http';
import { send, type Transport } from '@lore/platform/transport/port';
import { authorize } from '../auth/access';
import type { Authenticator } from '../auth/authenticator';
import { sendError } from './error-replies';
import type { EventStreams } from './event-stream';
import type { RequestRateLimits } from './request-rate-limits';
import { readUpload } from './multipart-upload';
import { inApiTerms } from './issue-locations';
import { replyMismatch } from './reply-check';
import { admittedScope, noteAdmittedScope } from './admitted-scopes';

/**
 * Registers routes on Fastify: authenticate, authorize and admit (rate limits) before the body
 * is read, then parse path/query/body with the route's zod schemas (422 in FastAPI's shape), run
 * the handler, send the success status.
 */
export function registerRoutes(
  app: FastifyInstance,
  routes: readonly HttpRoute[],
  deps: {
    readonly authenticator: Authenticator;
    readonly transport: Transport;
    readonly requestTimeoutMs: number;
    readonly eventStreams: EventStreams;
    readonly rateLimits: RequestRateLimits;
    /** LORE_CHECK_REPLIES: parse every success reply with its route's schema (tests); a mismatch is a 500. */
    readonly checkReplies?: boolean;
  },
): void {
  const { authenticator, transport, requestTimeoutMs, eventStreams, rateLimits, checkReplies = false } = deps;

  /**
   * The caller's scope, once authenticated, authorized and admitted by the rate limits; a
   * value when all of that is known at once (a token verified lately, local buckets), a
   * promise otherwise.
   */
  const admit = (r: HttpRoute, request: FastifyRequest, reply: FastifyReply): RequestScope | Promise<RequestScope> => {
    const scoped = (caller: Caller): RequestScope | Promise<RequestScope> => {
      const scope = authorize(caller, {
        workspaceHeader: headerValue(request.headers['x-workspace-id']),
        clientIp: request.ip,
        permission: r.permission,
        requestId: request.id,
      });
      const admitting = rateLimits.admit(scope, reply);
      return admitting === undefined ? scope : admitting.then(() => scope);
    };
    const caller = authenticator.authenticateAtOnce(request.headers.authorization);
    return caller === undefined ? authenticator.authenticate(request.headers.authorization, request.id).then(scoped) : scoped(caller);
  };

  /**
   * Before the body is read: a request without a valid credential, without the permission, or
   * over its rate limits is answered without its body being read, decoded or parsed (up to a
   * route's body limit, 41 MiB for uploads), which no anonymous caller should get for free.
   */
  const authenticateFirst = (r: HttpRoute) => (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
    const refuse = (error: unknown): void => void sendError(error, request, reply);
    let admitted: RequestScope | Promise<RequestScope>;
    try {
      admitted = admit(r, request, reply);
    } catch (error) {
      return refuse(error);
    }
    if (!(admitted instanceof Promise)) {
      noteAdmittedScope(request, admitted);
      return done();
    }
    admitted.then((scope) => {
      noteAdmittedScope(request, scope);
      done();
    }, refuse);
  };

  for (const r of routes) {
    const integerFields = integerQueryFields(r.query);
    app.route({
      method: r.method,
      url: r.path,
      ...(r.bodyLimit === undefined ? {} : { bodyLimit: r.bodyLimit }),
      ...(r.auth ? { onRequest: authenticateFirst(r) } : {}),
      handler: async (request: FastifyRequest, reply: FastifyReply) => {
        try {
          const issues: ValidationIssue[] = [];
          const params = parsePart(r.params, request.params, 'path', issues);
          const query = parsePart(r.query, strictQueryIntegers(integerFields, request.query, issues), 'query', issues);
          const scope = r.auth ? (admittedScope(request) ?? null) : null;
          if (r.auth && scope === null) throw new AppError('internal', `${r.path} reached its handler unauthenticated`);
          const multipart = r.upload !== undefined && request.isMultipart();
          const upload = multipart && r.upload !== undefined ? await readUpload(request, r.upload, issues) : null;
          const body = multipart ? undefined : parsePart(r.body, request.body === undefined ? {} : request.body, 'body', issues);
          if (issues.length > 0) throw new AppError('validation', 'Request validation failed', issues);
          const timeoutMs = Math.max(requestTimeoutMs, r.timeoutMs ?? 0);
          const sendForRequest: Send = (message, payload) => send(transport, message, payload, { requestId: request.id, timeoutMs });
          // An open route (auth: false) never reads its scope. Refusals of message fields, by a
          // service or by the handler itself, are located where this request carried them.
          // A rejection is located in API terms; a handler that throws before returning its
          // promise is not (as with `.catch`, which this await replaces: one promise less).
          const handling = r.handle({ params, query, body, upload, scope: scope as RequestScope, send: sendForRequest });
          let result: unknown;
          try {
            result = await handling;
          } catch (error) {
            throw inApiTerms(error, r, multipart);
          }
          if (checkReplies) checkReply(r, result, request);
          if (result instanceof EventStreamReply) {
            if (scope === null) throw new Error(`${r.path} streams events without authentication`);
            return await eventStreams.send(reply, result, headerValue(request.headers['last-event-id']), scope);
          }
          if (result instanceof AcceptedReply) {
            // Checked in production too: a 202 the OpenAPI document does not show is a bug, not an answer.
            if (r.accepted === undefined) throw new AppError('internal', `${r.method} ${r.path} (${r.operationId}) answered 202, which it does not declare (accepted)`);
            return reply.code(202).send(result.body);
          }
          if (result instanceof RedirectReply) {
            return reply.code(302).header('location', result.location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').send();
          }
          if (result instanceof TextReply) return reply.code(r.status).type(`${result.contentType}; charset=utf-8`).send(result.text);
          if (result instanceof FileReply) {
            return reply
              .code(r.status)
              .type(result.contentType)
              .header('content-length', result.sizeBytes)
              .header('content-disposition', contentDisposition(result.fileName))
              // A kept upload is served as data, never rendered as a page of this origin.
              .header('x-content-type-options', 'nosniff')
              .header('content-security-policy', "default-src 'none'; sandbox")
              .send(Readable.from(result.pieces()));
          }
          return reply.code(r.status).send(result);
        } catch (error) {
          return sendError(error, request, reply);
        }
      },
    });
  }
}

/** Throws (a 500 that says why, logged as an error) when a reply is not what the route documents. */
function checkReply(route: HttpRoute, result: unknown, request: FastifyRequest): void {
  if (result instanceof RedirectReply || route.status === 302) {
    if (result instanceof RedirectReply && route.status === 302) return;
    throw new AppError('internal', `Reply of ${route.method} ${route.path} (${route.operationId}) is ${route.status === 302 ? 'not a redirect' : 'a redirect the route does not declare (status 302)'}`);
  }
  // A file is served as it came, whatever its type: the route declares that it serves files.
  if (result instanceof FileReply) {
    if ((route.textResponses ?? []).includes('application/octet-stream')) return;
    throw new AppError('internal', `Reply of ${route.method} ${route.path} (${route.operationId}) is a file, which the route does not declare`);
  }
  const mismatch =
    result instanceof TextReply || result instanceof EventStreamReply
      ? (route.textResponses ?? []).includes(result instanceof TextReply ? result.contentType : 'text/event-stream')
        ? null
        : 'a non-JSON reply the route does not declare in textResponses'
      : replyMismatch(route, result instanceof AcceptedReply ? result.body : result);
  if (mismatch === null) return;
  const message = `Reply of ${route.method} ${route.path} (${route.operationId}) does not match its response schema: ${mismatch}`;
  request.log.error({ operationId: route.operationId }, message);
  throw new AppError('internal', message);
}

function parsePart(schema: z.ZodType | undefined, input: unknown, location: 'path' | 'query' | 'body', issues: ValidationIssue[]): unknown {
  if (schema === undefined) return undefined;
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  issues.push(...zodIssuesToValidationIssues(result.error.issues, location, input, schema));
  return undefined;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `attachment` with the name as an ASCII fallback and as RFC 5987 UTF-8 (RFC 6266): quotes, controls and non-ASCII never reach the header raw. */
function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'download';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
