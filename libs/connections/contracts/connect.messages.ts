import { z } from 'zod';
import { defineMessage } from '@lore/platform/kernel';
import type { ConnectionLimits } from './connections.config';
import { connectionFields, OwnerScope } from './connection.messages';
import { BrowserRedirect, ConnectSessionRecord } from './connect.records';

/** A scope as providers write them (`read:org`, `https://www.googleapis.com/auth/drive.readonly`): no separator inside. */
export const OAuthScope = z.string().min(1).max(200).regex(/^[\x21-\x2b\x2d-\x7e]+$/, 'a scope is printable ASCII without spaces or commas');

/** The connect flow's messages: two for the application (authenticated), two for the user's browser (open, one-time). */
export function connectMessages(limits: ConnectionLimits) {
  const f = connectionFields(limits);
  const sessionId = z.string().min(1).max(100);
  return {
    create: defineMessage(
      'connections.command.connect-create',
      OwnerScope.extend({
        integration: f.integration,
        authMethodId: f.authMethodId.optional(),
        scopes: z.array(OAuthScope).max(100).optional(),
        redirectUrl: z.string().min(1).max(2000),
        config: f.config.optional(),
        label: f.label.optional(),
        connectionId: z.string().min(1).max(100).optional(),
        expiresInSeconds: z.number().int().min(1).max(86_400).optional(),
      }),
      ConnectSessionRecord,
    ),
    get: defineMessage('connections.query.connect-get', OwnerScope.extend({ sessionId }), ConnectSessionRecord),
    authorize: defineMessage('connections.command.connect-authorize', z.object({ sessionId, token: z.string().min(1).max(200) }), BrowserRedirect),
    callback: defineMessage(
      'connections.command.connect-callback',
      z.object({
        state: z.string().max(300).optional(),
        code: z.string().max(4000).optional(),
        error: z.string().max(200).optional(),
        errorDescription: z.string().max(2000).optional(),
      }),
      BrowserRedirect,
    ),
  };
}
export type ConnectMessages = ReturnType<typeof connectMessages>;
