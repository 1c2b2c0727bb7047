import { conflict, notFound, type Decider, type RecordedEvent } from '@lore/platform/kernel';
import { WebhookEvent } from './webhook.events';

type Created = Extract<WebhookEvent, { type: 'connections.WebhookCreated' }>['data'];

export type LiveWebhook = Created & {
  readonly status: 'active' | 'disabled';
};

export type WebhookState = { readonly status: 'absent' } | LiveWebhook | { readonly status: 'deleted'; readonly workspaceId: string };

export type WebhookCommand =
  | { readonly kind: 'create'; readonly webhook: Omit<Created, 'createdAt'>; readonly at: string }
  | { readonly kind: 'change'; readonly workspaceId: string; readonly url?: string; readonly eventTypes?: readonly string[]; readonly description?: string; readonly at: string }
  /** `automatic`: the sender's decision after sustained failure; ignored if a user already disabled it. */
  | { readonly kind: 'disable'; readonly workspaceId: string; readonly reason: string; readonly automatic: boolean; readonly at: string }
  | { readonly kind: 'enable'; readonly workspaceId: string; readonly at: string }
  | { readonly kind: 'delete'; readonly workspaceId: string; readonly at: string };

/** A webhook exists for a caller only in its own workspace. */
export function workspaceWebhook(state: WebhookState, workspaceId: string): LiveWebhook {
  if ((state.status === 'active' || state.status === 'disabled') && state.workspaceId === workspaceId) return state;
  throw notFound('Webhook');
}

export const webhookDecider: Decider<WebhookCommand, WebhookState, WebhookEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'create':
        if (state.status !== 'absent') throw conflict(`webhook ${command.webhook.webhookId} already exists`);
        return [{ type: 'connections.WebhookCreated', data: { ...command.webhook, createdAt: command.at } }];
      case 'change': {
        const webhook = workspaceWebhook(state, command.workspaceId);
        const data = {
          webhookId: webhook.webhookId,
          ...(command.url !== undefined && command.url !== webhook.url ? { url: command.url } : {}),
          ...(command.eventTypes !== undefined && command.eventTypes.join() !== webhook.eventTypes.join() ? { eventTypes: [...command.eventTypes] } : {}),
          ...(command.description !== undefined && command.description !== webhook.description ? { description: command.description } : {}),
          at: command.at,
        };
        return Object.keys(data).length > 2 ? [{ type: 'connections.WebhookChanged', data }] : [];
      }
      case 'disable': {
        const webhook = workspaceWebhook(state, command.workspaceId);
        if (webhook.status === 'disabled') return [];
        return [{ type: 'connections.WebhookDisabled', data: { webhookId: webhook.webhookId, reason: command.reason, automatic: command.automatic, at: command.at } }];
      }
      case 'enable': {
        const webhook = workspaceWebhook(state, command.workspaceId);
        return webhook.status === 'active' ? [] : [{ type: 'connections.WebhookEnabled', data: { webhookId: webhook.webhookId, at: command.at } }];
      }
      case 'delete': {
        const webhook = workspaceWebhook(state, command.workspaceId);
        return [{ type: 'connections.WebhookDeleted', data: { webhookId: webhook.webhookId, workspaceId: webhook.workspaceId, at: command.at } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'connections.WebhookCreated':
        return { ...event.data, status: 'active' };
      case 'connections.WebhookChanged':
        if (state.status !== 'active' && state.status !== 'disabled') return state;
        return {
          ...state,
          ...(event.data.url === undefined ? {} : { url: event.data.url }),
          ...(event.data.eventTypes === undefined ? {} : { eventTypes: event.data.eventTypes }),
          ...(event.data.description === undefined ? {} : { description: event.data.description }),
        };
      case 'connections.WebhookDisabled':
        return state.status === 'active' ? { ...state, status: 'disabled' } : state;
      case 'connections.WebhookEnabled':
        return state.status === 'disabled' ? { ...state, status: 'active' } : state;
      case 'connections.WebhookDeleted':
        return { status: 'deleted', workspaceId: event.data.workspaceId };
    }
  },
};

export function upcastWebhookEvent(recorded: RecordedEvent): WebhookEvent {
  return WebhookEvent.parse({ type: recorded.type, data: recorded.data });
}
