import { Catch, HttpException, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';

/**
 * Nest answers unknown routes itself (it owns Fastify's not-found handler); this keeps
 * those answers in the gateway's `{detail: "..."}` shape.
 */
@Catch(HttpException)
export class DetailShapeFilter implements ExceptionFilter {
  catch(exception: HttpException, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const status = exception.getStatus();
    void reply.code(status).send({ detail: status === 404 ? 'Not Found' : exception.message });
  }
}
