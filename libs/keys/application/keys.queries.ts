import { timingSafeEqual } from 'node:crypto';
import { AppError, notFound, type Clock, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import { workspaceCollection, type DocumentStore } from '@lore/platform/documents/port';
import type { Keyring } from '@lore/platform/crypto';
import { parseApiKeyToken, type KeysMessages } from '@lore/keys/contracts';
import { API_KEYS, API_KEY_USAGE, toApiKeyRecord, type ApiKeyDoc, type ApiKeyUsageDoc } from './api-keys.read-model';

/** last_used_at is written at most once per key per interval: current enough, cheap per request. */
const USAGE_WRITE_INTERVAL_MS = 1_000;
export const SECRET_PURPOSE = 'api-key-secret';
/** Bound on the chain of creators checked per authentication (keys creating keys). */
const MAX_ANCESTRY = 32;

export class KeysQueries {
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly documents: DocumentStore,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {}

  /** Every key, whatever its workspace: only authentication reads them so, to find a key's workspace. */
  private get keys() {
    return this.documents.collection<ApiKeyDoc>(API_KEYS);
  }

  private workspaceKeys(workspaceId: string) {
    return workspaceCollection<ApiKeyDoc>(this.documents, API_KEYS, workspaceId);
  }

  /** Keyed by key id, no workspace of its own: read only for keys found in the caller's workspace. */
  private get usage() {
    return this.documents.collection<ApiKeyUsageDoc>(API_KEY_USAGE);
  }

  async get(ref: { workspaceId: string; keyId: string }): Promise<ReplyIn<KeysMessages, 'get'>> {
    const doc = await this.workspaceKeys(ref.workspaceId).get(ref.keyId);
    if (doc === null) throw notFound('API key');
    const usage = await this.usage.get(doc.id);
    return toApiKeyRecord(doc, usage?.last_used_at ?? null);
  }

  async list(query: ValidRequestIn<KeysMessages, 'list'>): Promise<ReplyIn<KeysMessages, 'list'>> {
    const keys = this.workspaceKeys(query.workspaceId);
    const filter = query.status === undefined ? {} : { status: query.status };
    const [total, page] = await Promise.all([
      keys.count(filter),
      keys.find({ filter, sort: [['created_at', 'desc']], skip: query.skip, limit: query.limit }),
    ]);
    const usage = page.items.length === 0 ? [] : (await this.usage.find({ filter: { id: { $in: page.items.map((k) => k.id) } } })).items;
    const lastUsed = new Map(usage.map((u) => [u.id, u.last_used_at]));
    return { items: page.items.map((doc) => toApiKeyRecord(doc, lastUsed.get(doc.id) ?? null)), total };
  }

  /** Resolves a bearer token to its key; every failure is the same 401 to the caller, with a reason it can act on. */
  async authenticate(token: string): Promise<ReplyIn<KeysMessages, 'authenticate'>> {
    const parsed = parseApiKeyToken(token);
    if (parsed === null) throw new AppError('unauthenticated', 'Invalid API key');
    const doc = await this.keys.get(parsed.keyId);
    if (doc === null || !sameHex(doc.secret_verifier, this.keyring.verifier(SECRET_PURPOSE, parsed.secret))) {
      throw new AppError('unauthenticated', 'Invalid API key');
    }
    if (doc.status === 'revoked') throw new AppError('unauthenticated', 'API key has been revoked');
    if (doc.status !== 'active') throw new AppError('unauthenticated', 'API key is not active');
    const now = this.clock.now();
    if (doc.expires_at !== null && Date.parse(doc.expires_at) <= now.getTime()) throw new AppError('unauthenticated', 'API key has expired');
    await this.checkCreators(doc);
    await this.touch(doc.id, now);
    return {
      keyId: doc.id,
      workspaceId: doc.workspace_id,
      createdBy: doc.created_by,
      actsForOthers: doc.acts_for_others === true,
      permissions: doc.permissions,
      ipWhitelist: doc.ip_whitelist,
      collections: doc.collections,
    };
  }

  /** A key works only while the key that created it (and its creator, …) is active. */
  private async checkCreators(doc: ApiKeyDoc): Promise<void> {
    let parentId = doc.parent_key_id ?? null;
    for (let depth = 0; parentId !== null; depth++) {
      const parent = depth < MAX_ANCESTRY ? await this.keys.get(parentId) : null;
      if (parent === null || parent.status !== 'active') throw new AppError('unauthenticated', 'API key has been revoked');
      parentId = parent.parent_key_id ?? null;
    }
  }

  private async touch(keyId: string, now: Date): Promise<void> {
    const last = this.lastWritten.get(keyId) ?? 0;
    if (now.getTime() - last < USAGE_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(keyId, now.getTime());
    await this.usage.upsert({ id: keyId, last_used_at: now.toISOString() });
  }
}

function sameHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
