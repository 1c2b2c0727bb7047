import { Catch, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sendError } from './error-replies';

/**
 * Nest owns Fastify's error and not-found handlers; every error they see (body parsing,
 * body size, unknown routes) comes through here, so it leaves in the gateway's shapes.
 */
@Catch()
export class GatewayErrorFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    void sendError(exception, http.getRequest<FastifyRequest>(), http.getResponse<FastifyReply>());
  }
}
