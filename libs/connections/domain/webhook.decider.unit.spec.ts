import { deciderSpec } from '@lore/platform/testing';
import { webhookDecider, type WebhookCommand } from './webhook.decider';
import type { WebhookEvent } from './webhook.events';

const T0 = '2026-01-01T00:00:00.000Z';
const T1 = '2026-01-01T00:01:00.000Z';
const spec = deciderSpec(webhookDecider);
const ws = 'ws';
const webhook = { webhookId: 'wh_1', workspaceId: ws, createdBy: 'alice', url: 'https://hooks.example/a', eventTypes: ['memory.created'], description: 'audit', secret: 'dk_1:sealed' };

const created: WebhookEvent = { type: 'connections.WebhookCreated', data: { ...webhook, createdAt: T0 } };
const disabled = (automatic: boolean, reason = 'paused'): WebhookEvent => ({ type: 'connections.WebhookDisabled', data: { webhookId: 'wh_1', reason, automatic, at: T1 } });
const enabled: WebhookEvent = { type: 'connections.WebhookEnabled', data: { webhookId: 'wh_1', at: T1 } };
const deleted: WebhookEvent = { type: 'connections.WebhookDeleted', data: { webhookId: 'wh_1', workspaceId: ws, at: T1 } };

const change = (fields: Partial<Extract<WebhookCommand, { kind: 'change' }>> = {}): WebhookCommand => ({ kind: 'change', workspaceId: ws, at: T1, ...fields });
const disable = (automatic = false, workspaceId = ws): WebhookCommand => ({ kind: 'disable', workspaceId, reason: 'paused', automatic, at: T1 });
const enable = (workspaceId = ws): WebhookCommand => ({ kind: 'enable', workspaceId, at: T1 });
const remove = (workspaceId = ws): WebhookCommand => ({ kind: 'delete', workspaceId, at: T1 });

describe('webhookDecider', () => {
  describe('create', () => {
    it('creates an active webhook, stamped with the command time', () => {
      const state = spec.given([]).when({ kind: 'create', webhook, at: T0 }).then([created]);
      expect(state).toMatchObject({ status: 'active', url: webhook.url, createdAt: T0 });
    });

    it('refuses an id that exists, or existed (a deleted webhook id is never reused)', () => {
      spec.given([created]).when({ kind: 'create', webhook, at: T1 }).thenThrows('conflict', /wh_1/);
      spec.given([created, deleted]).when({ kind: 'create', webhook, at: T1 }).thenThrows('conflict');
    });
  });

  describe('change', () => {
    it('records only the fields that differ', () => {
      const state = spec
        .given([created])
        .when(change({ url: 'https://hooks.example/b', eventTypes: ['memory.created'], description: 'audit' }))
        .then([{ type: 'connections.WebhookChanged', data: { webhookId: 'wh_1', url: 'https://hooks.example/b', at: T1 } }]);
      expect(state).toMatchObject({ url: 'https://hooks.example/b', eventTypes: ['memory.created'], description: 'audit' });
      spec
        .given([created])
        .when(change({ eventTypes: ['memory.created', 'memory.deleted'], description: '' }))
        .then([{ type: 'connections.WebhookChanged', data: { webhookId: 'wh_1', eventTypes: ['memory.created', 'memory.deleted'], description: '', at: T1 } }]);
    });

    it('changes a disabled webhook too, leaving it disabled', () => {
      const state = spec.given([created, disabled(false)]).when(change({ description: 'new' })).then([{ type: 'connections.WebhookChanged', data: { webhookId: 'wh_1', description: 'new', at: T1 } }]);
      expect(state.status).toBe('disabled');
    });

    it('records nothing when nothing differs', () => {
      spec.given([created]).when(change()).thenNothingHappened();
      spec.given([created]).when(change({ url: webhook.url, eventTypes: [...webhook.eventTypes], description: webhook.description })).thenNothingHappened();
    });

    it('is not found when absent, deleted, or in another workspace', () => {
      spec.given([]).when(change({ url: 'https://hooks.example/b' })).thenThrows('not_found');
      spec.given([created, deleted]).when(change({ url: 'https://hooks.example/b' })).thenThrows('not_found');
      spec.given([created]).when(change({ workspaceId: 'other', url: 'https://hooks.example/b' })).thenThrows('not_found');
    });
  });

  describe('disable and enable', () => {
    it('disables an active webhook, saying who decided and why', () => {
      expect(spec.given([created]).when(disable()).then([disabled(false)]).status).toBe('disabled');
      spec.given([created]).when({ kind: 'disable', workspaceId: ws, reason: '10 failures in a row', automatic: true, at: T1 }).then([disabled(true, '10 failures in a row')]);
    });

    it('leaves a disabled webhook as it is: the sender never overrides a user, nor a user repeats', () => {
      spec.given([created, disabled(false)]).when(disable(true)).thenNothingHappened();
      spec.given([created, disabled(true)]).when(disable(false)).thenNothingHappened();
    });

    it('enables a disabled webhook, and an active one stays as it is', () => {
      expect(spec.given([created, disabled(true)]).when(enable()).then([enabled]).status).toBe('active');
      spec.given([created]).when(enable()).thenNothingHappened();
    });

    it('is not found when absent, deleted, or in another workspace', () => {
      for (const command of [(workspaceId?: string) => disable(false, workspaceId), enable]) {
        spec.given([]).when(command()).thenThrows('not_found');
        spec.given([created, deleted]).when(command()).thenThrows('not_found');
        spec.given([created]).when(command('other')).thenThrows('not_found');
      }
    });
  });

  describe('delete', () => {
    it('deletes an active or a disabled webhook, naming its workspace for erasure', () => {
      expect(spec.given([created]).when(remove()).then([deleted])).toEqual({ status: 'deleted', workspaceId: ws });
      spec.given([created, disabled(true)]).when(remove()).then([deleted]);
    });

    it('is not found when absent, already deleted, or in another workspace', () => {
      spec.given([]).when(remove()).thenThrows('not_found');
      spec.given([created, deleted]).when(remove()).thenThrows('not_found');
      spec.given([created]).when(remove('other')).thenThrows('not_found');
    });
  });
});
