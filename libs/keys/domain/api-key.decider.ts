import { conflict, covers, forbidden, grantsAdminResource, invalid, ipRulesNarrow, notFound, permits, type Decider } from '@lore/platform/kernel';
import type { ApiKeyCreatedData, ApiKeyEvent } from './api-key.events';

export type ApiKeyState =
  | { readonly status: 'absent' }
  | { readonly status: 'active' | 'inactive'; readonly key: ApiKeyCreatedData; readonly updatedAt: string }
  /** `cascaded`: every key below it is revoked too (ApiKeyRevocationCascaded). */
  | { readonly status: 'revoked'; readonly key: ApiKeyCreatedData; readonly updatedAt: string; readonly cascaded: boolean };

/**
 * Who hands out or takes away a key. A user holds everything in its workspace, and acts for
 * others when its token makes it an administrator; an API key holds its own grants and knows
 * the keys it descends from (both read from the event log by the handler); a cascade is the
 * revocation of a key whose creator was revoked.
 */
export type Grantor =
  | { readonly kind: 'user'; readonly userId: string; readonly role: 'admin' | 'member' }
  | { readonly kind: 'api_key'; readonly key: ApiKeyCreatedData; readonly ancestors: readonly string[] }
  | { readonly kind: 'cascade'; readonly parentKeyId: string };

/** What a creator asks for; an omitted limit is inherited from an API-key creator. */
export interface ApiKeyRequest {
  readonly keyId: string;
  readonly workspaceId: string;
  readonly label: string;
  readonly status: 'active' | 'inactive';
  readonly secretVerifier: string;
  readonly expiresAt?: string | null | undefined;
  readonly permissions?: readonly string[] | undefined;
  readonly ipWhitelist?: readonly string[] | undefined;
  readonly collections?: readonly string[] | undefined;
}

export type ApiKeyCommand =
  | { readonly kind: 'create'; readonly request: ApiKeyRequest; readonly grantor: Exclude<Grantor, { kind: 'cascade' }>; readonly now: string }
  | { readonly kind: 'revoke'; readonly keyId: string; readonly workspaceId: string; readonly grantor: Grantor; readonly at: string }
  /** The handler's record that the revocation reached every key below this one; once only. */
  | { readonly kind: 'finish-cascade'; readonly keyId: string; readonly workspaceId: string; readonly at: string };

export const apiKeyDecider: Decider<ApiKeyCommand, ApiKeyState, ApiKeyEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'create': {
        if (state.status !== 'absent') throw conflict(`API key ${command.request.keyId} already exists`);
        const { request, now } = command;
        if (request.expiresAt != null && Date.parse(request.expiresAt) <= Date.parse(now)) {
          // Located as the field of the create message; the HTTP edge checks the same on its body first.
          throw invalid(['message', 'expiresAt'], 'Expiry must lie in the future');
        }
        return [{ type: 'keys.ApiKeyCreated', data: { ...delegate(request, command.grantor), createdAt: now } }];
      }
      case 'revoke': {
        if (state.status === 'absent' || state.key.workspaceId !== command.workspaceId) throw notFound('API key');
        const cascadedFrom = command.grantor.kind === 'cascade' ? command.grantor.parentKeyId : null;
        if (cascadedFrom !== null && state.key.parentKeyId !== cascadedFrom) throw forbidden(`API key ${command.keyId} was not created by ${cascadedFrom}`);
        if (command.grantor.kind === 'api_key') mayRevoke(command.grantor, state.key);
        if (command.grantor.kind !== 'cascade' && state.key.actsForOthers && !grantorActsForOthers(command.grantor)) {
          // A member cannot take away the keys an administrator runs the workspace with.
          throw forbidden("Only a workspace administrator (or a key one minted) can revoke a key an administrator minted");
        }
        if (state.status === 'revoked') return []; // revoking twice changes nothing
        return [{ type: 'keys.ApiKeyRevoked', data: { keyId: command.keyId, workspaceId: command.workspaceId, revokedAt: command.at, cascadedFrom } }];
      }
      case 'finish-cascade': {
        if (state.status === 'absent' || state.key.workspaceId !== command.workspaceId) throw notFound('API key');
        if (state.status !== 'revoked') throw conflict(`API key ${command.keyId} is not revoked`);
        if (state.cascaded) return [];
        return [{ type: 'keys.ApiKeyRevocationCascaded', data: { keyId: command.keyId, workspaceId: command.workspaceId, cascadedAt: command.at } }];
      }
    }
  },

  evolve(state, event) {
    switch (event.type) {
      case 'keys.ApiKeyCreated':
        return { status: event.data.status, key: event.data, updatedAt: event.data.createdAt };
      case 'keys.ApiKeyRevoked':
        return state.status === 'absent' ? state : { status: 'revoked', key: state.key, updatedAt: event.data.revokedAt, cascaded: false };
      case 'keys.ApiKeyRevocationCascaded':
        return state.status === 'revoked' ? { ...state, cascaded: true } : state;
    }
  },
};

/**
 * A key can never be wider than its creator: permissions and collections it lacks cannot
 * be granted, IP rules and expiry are inherited or narrowed. A user grants anything in its
 * workspace; its omitted lists mean "everything" (`*`, all collections, any address, never).
 * Acting for other users, and admin permissions, come only from an administrator: the key
 * records whether its lineage began with one (`actsForOthers`); a member's `*` covers
 * everything but admin resources, and naming them outright is refused.
 */
function delegate(request: ApiKeyRequest, grantor: Exclude<Grantor, { kind: 'cascade' }>): Omit<ApiKeyCreatedData, 'createdAt'> {
  if (grantor.kind === 'api_key') mayManageKeys(grantor.key);
  const actsForOthers = grantorActsForOthers(grantor);
  const adminGrants = (request.permissions ?? []).filter(grantsAdminResource);
  if (!actsForOthers && adminGrants.length > 0) throw forbidden(`Only a workspace administrator (or a key one minted) can grant ${adminGrants.join(', ')}`);
  const base = { keyId: request.keyId, workspaceId: request.workspaceId, label: request.label, status: request.status, secretVerifier: request.secretVerifier, actsForOthers };
  if (grantor.kind === 'user') {
    return {
      ...base,
      permissions: [...(request.permissions ?? ['*'])],
      collections: [...(request.collections ?? [])],
      ipWhitelist: [...(request.ipWhitelist ?? [])],
      expiresAt: request.expiresAt ?? null,
      createdBy: grantor.userId,
      parentKeyId: null,
    };
  }
  const parent = grantor.key;
  if (parent.workspaceId !== request.workspaceId) throw forbidden('An API key can only create keys in its own workspace');
  const permissions = [...(request.permissions ?? parent.permissions)];
  const missing = permissions.filter((p) => !covers(parent.permissions, p));
  if (missing.length > 0) throw forbidden(`Cannot grant permissions this API key lacks: ${missing.join(', ')}`);
  const collections = [...(request.collections ?? parent.collections)];
  const outside = collectionsOutside(collections, parent.collections);
  if (outside !== null) throw forbidden(outside);
  const ipWhitelist = [...(request.ipWhitelist ?? parent.ipWhitelist)];
  if (!ipRulesNarrow(ipWhitelist, parent.ipWhitelist)) {
    throw forbidden(`IP rules must lie within this API key's own (${parent.ipWhitelist.join(', ')})`);
  }
  const expiresAt = request.expiresAt === undefined ? parent.expiresAt : request.expiresAt;
  if (parent.expiresAt !== null && (expiresAt === null || Date.parse(expiresAt) > Date.parse(parent.expiresAt))) {
    throw forbidden(`A key created by this API key must expire no later than it does (${parent.expiresAt})`);
  }
  return { ...base, permissions, collections, ipWhitelist, expiresAt, createdBy: parent.createdBy, parentKeyId: parent.keyId };
}

function grantorActsForOthers(grantor: Exclude<Grantor, { kind: 'cascade' }>): boolean {
  return grantor.kind === 'user' ? grantor.role === 'admin' : grantor.key.actsForOthers;
}

/** Managing keys takes `api_keys:write`, whoever asks (the gateway checks it too, but not every caller comes through it). */
function mayManageKeys(key: ApiKeyCreatedData): void {
  if (!permits(key.permissions, 'api_keys', 'write')) throw forbidden('This API key lacks the permission api_keys:write');
}

/**
 * Revoking a key takes `api_keys:write` and covering the target's grants (a narrower key
 * cannot take down a wider one), and a key can never revoke one it descends from: a
 * delegated key must not take down the tree it was handed.
 */
function mayRevoke(grantor: Extract<Grantor, { kind: 'api_key' }>, target: ApiKeyCreatedData): void {
  mayManageKeys(grantor.key);
  if (grantor.ancestors.includes(target.keyId)) throw forbidden('An API key cannot revoke the key it was created from');
  mayCover(grantor.key, target);
}

function mayCover(grantor: ApiKeyCreatedData, target: ApiKeyCreatedData): void {
  const missing = target.permissions.filter((p) => !covers(grantor.permissions, p));
  if (missing.length > 0) throw forbidden(`Cannot revoke a key holding permissions this API key lacks: ${missing.join(', ')}`);
  const outside = collectionsOutside(target.collections, grantor.collections);
  if (outside !== null) throw forbidden(outside.replace('grant', 'revoke a key with'));
}

/** Null when `wanted` lies within `held` (an empty list means all collections), else why not. */
function collectionsOutside(wanted: readonly string[], held: readonly string[]): string | null {
  if (held.length === 0) return null;
  if (wanted.length === 0) return 'Cannot grant access to all collections: this API key is limited to some';
  const outside = wanted.filter((c) => !held.includes(c));
  return outside.length > 0 ? `Cannot grant collections this API key lacks: ${outside.join(', ')}` : null;
}
