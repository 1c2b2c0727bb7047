import { randomBytes } from 'node:crypto';
import { Controller, Module } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload, RpcException, type NatsContext } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import type { ValidationIssue } from '@lore/platform/kernel';
import { REQUEST_ID_HEADER } from './nats-transport.adapter';

/**
 * A stock NestJS microservice for the interop spec: `@MessagePattern` handlers answering in
 * every shape Nest can (a value, nothing, a stream, late disposal, Lore-shaped and plain
 * RpcExceptions, a crash, an error mid-stream, a stream never ended) and an `@EventPattern`
 * handler, all under a subject prefix unique to this run.
 */
export const PREFIX = `lore-nest-interop.${randomBytes(6).toString('hex')}`;
export const NEST = {
  echo: `${PREFIX}.nest.echo`,
  nothing: `${PREFIX}.nest.nothing`,
  stream: `${PREFIX}.nest.stream`,
  lateDispose: `${PREFIX}.nest.late-dispose`,
  loreError: `${PREFIX}.nest.lore-error`,
  plainError: `${PREFIX}.nest.plain-error`,
  crash: `${PREFIX}.nest.crash`,
  lateError: `${PREFIX}.nest.late-error`,
  neverDisposed: `${PREFIX}.nest.never-disposed`,
  event: `${PREFIX}.nest.event`,
} as const;
export const CONFLICT_ISSUES: ValidationIssue[] = [{ loc: ['body', 'version'], msg: 'stale', type: 'conflict' }];

/** Values delivered asynchronously, and a way to wait for a count of them. */
export class Deliveries<T> {
  readonly items: T[] = [];
  private waiters: Array<() => void> = [];

  push(item: T): void {
    this.items.push(item);
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Rejects after a bound, so a delivery that never comes fails its test with a reason. */
  async waitFor(count: number, boundMs = 5_000): Promise<T[]> {
    const bound = Date.now() + boundMs;
    while (this.items.length < count) {
      const left = bound - Date.now();
      if (left <= 0) throw new Error(`expected ${count} deliveries, got ${this.items.length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.items;
  }
}

export interface NestDelivery {
  readonly data: unknown;
  readonly subject: string;
  readonly requestId: string | undefined;
}

export const nestRequests = new Deliveries<NestDelivery>();
export const nestEvents = new Deliveries<NestDelivery>();

function delivery(data: unknown, ctx: NatsContext): NestDelivery {
  const hdrs = ctx.getHeaders() as { get(key: string): string } | undefined;
  return { data, subject: ctx.getSubject(), requestId: hdrs?.get(REQUEST_ID_HEADER) || undefined };
}

/** Runs `step` on a later turn of the event loop, so Nest sends what came before on its own. */
const later = (step: () => void): void => {
  setImmediate(step);
};

@Controller()
class StockNestController {
  @MessagePattern(NEST.echo)
  echo(@Payload() data: unknown, @Ctx() ctx: NatsContext): unknown {
    nestRequests.push(delivery(data, ctx));
    return { echoed: data };
  }

  @MessagePattern(NEST.nothing)
  nothing(): undefined {
    return undefined;
  }

  /** Four packets: { response: 'x:1' }, { response: 'x:2' }, { response: 'x:3' }, { isDisposed: true }. */
  @MessagePattern(NEST.stream)
  stream(data: unknown): Observable<string> {
    return new Observable<string>((subscriber) => {
      subscriber.next(`${String(data)}:1`);
      later(() => {
        subscriber.next(`${String(data)}:2`);
        later(() => {
          subscriber.next(`${String(data)}:3`);
          later(() => subscriber.complete());
        });
      });
    });
  }

  /** Two packets: { response: 'answer' }, then { isDisposed: true }. */
  @MessagePattern(NEST.lateDispose)
  lateDispose(data: unknown): Observable<string> {
    return new Observable<string>((subscriber) => {
      subscriber.next(`answer to ${String(data)}`);
      later(() => subscriber.complete());
    });
  }

  @MessagePattern(NEST.loreError)
  loreError(): never {
    throw new RpcException({ code: 'conflict', message: 'memory changed meanwhile', issues: CONFLICT_ISSUES });
  }

  @MessagePattern(NEST.plainError)
  plainError(): never {
    throw new RpcException('quota of the remote service exceeded');
  }

  @MessagePattern(NEST.crash)
  crash(): never {
    throw new Error('secret connection string postgres://admin:hunter2@db');
  }

  /** A response, then a failure: { response: 'x' }, then { err, isDisposed: true }. */
  @MessagePattern(NEST.lateError)
  lateError(data: unknown): Observable<string> {
    return new Observable<string>((subscriber) => {
      subscriber.next(String(data));
      later(() => subscriber.error(new RpcException({ code: 'conflict', message: 'changed while streaming' })));
    });
  }

  /** A response and never the end of the stream. */
  @MessagePattern(NEST.neverDisposed)
  neverDisposed(data: unknown): Observable<string> {
    return new Observable<string>((subscriber) => {
      subscriber.next(String(data));
    });
  }

  @EventPattern(NEST.event)
  event(@Payload() data: unknown, @Ctx() ctx: NatsContext): void {
    nestEvents.push(delivery(data, ctx));
  }
}

@Module({ controllers: [StockNestController] })
export class StockNestModule {}
