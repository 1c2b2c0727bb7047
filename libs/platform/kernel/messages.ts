import type { z } from 'zod';

/**
 * One command or query of a context, defined once in its `contracts`: the subject it
 * travels on and the schemas of what is sent and what comes back. The service validates
 * every request with `request` (so its rules hold for any caller on the transport) and the
 * sender parses every reply with `reply` (so no reply is ever cast).
 */
export interface Message<Req extends z.ZodType = z.ZodType, Rep extends z.ZodType = z.ZodType> {
  readonly subject: string;
  readonly request: Req;
  readonly reply: Rep;
}

export function defineMessage<Req extends z.ZodType, Rep extends z.ZodType>(subject: string, request: Req, reply: Rep): Message<Req, Rep> {
  return { subject, request, reply };
}

/** What a sender passes (before defaults are applied). */
export type RequestOf<M extends Message> = z.input<M['request']>;
/** What a handler receives, after validation. */
export type ValidRequestOf<M extends Message> = z.output<M['request']>;
/** What a handler returns and a sender receives. */
export type ReplyOf<M extends Message> = z.output<M['reply']>;

/**
 * What the handler of message `K` of a context's catalogue receives (`ValidRequestIn<MemoryMessages, 'create'>`)
 * and returns (`ReplyIn<…>`): handlers name their message, not its schemas.
 */
export type ValidRequestIn<Ms extends Record<keyof Ms, Message>, K extends keyof Ms> = ValidRequestOf<Ms[K]>;
export type ReplyIn<Ms extends Record<keyof Ms, Message>, K extends keyof Ms> = ReplyOf<Ms[K]>;
