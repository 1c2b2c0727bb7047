/**
 * One keyring's part of a master key rotation, in steps that each leave it in a state the next
 * run recognises: inspect (which key opens it, is a rotation under way), mark (the check doc
 * records the rotation and the new key's check), re-wrap (batch by batch, each data key moving
 * from version `from` under the old key to `to` under the new one), finish (the check doc is
 * the new key's, the mark is gone). A crash anywhere is completed by running it again.
 */
import type { DocumentStore, DocumentWrite } from '@lore/platform/documents/port';
import {
  KEY_CHECK_ID,
  KEYRING_COLLECTION,
  masterVersionOf,
  notAtVersion,
  opensKeyCheck,
  sealKeyCheck,
  sealVerifierKeys,
  unwrapDataKey,
  verifierKeys,
  wrapDataKey,
  type KeyringCheckDoc,
  type WrappedKeyDoc,
} from '@lore/platform/crypto';
import type { KeyringStore } from './keyring-stores';

export interface KeyringPlan {
  readonly store: KeyringStore;
  /** fresh: opens with the old key; resume: marked by an earlier run; done: already the new key's (strays may remain). */
  readonly state: 'fresh' | 'resume' | 'done';
  readonly from: number;
  readonly to: number;
  /** Data keys not yet at version `to`. */
  readonly pending: number;
}

export interface RewrapOptions {
  readonly batchSize: number;
  readonly onProgress: (rewrapped: number) => void;
  /** Test hook: fail once this many data keys (counted over the whole run) have been re-wrapped. */
  readonly budget?: { remaining: number };
}

/** What state the keyring is in with respect to these keys; throws when neither key is its own. */
export async function inspectKeyring(store: KeyringStore, keys: { readonly old: Buffer; readonly next: Buffer }, where: string): Promise<KeyringPlan> {
  const check = await checkDoc(store.documents);
  const version = masterVersionOf(check);
  const plan = async (state: KeyringPlan['state'], from: number, to: number): Promise<KeyringPlan> => ({
    store,
    state,
    from,
    to,
    // The check doc is counted while it is still at `from`.
    pending: (await store.documents.collection(KEYRING_COLLECTION).count(notAtVersion(to))) - (masterVersionOf(check) === to ? 0 : 1),
  });
  if (check.rotation !== undefined) {
    const { from, to } = check.rotation;
    if (!opensKeyCheck(keys.old, check.wrapped)) {
      throw new Error(`${store.context}: an unfinished rotation from master key version ${from} to ${to} needs that version ${from} key as the current key, and this is not it (${where})`);
    }
    if (!opensKeyCheck(keys.next, check.rotation.wrapped)) {
      throw new Error(
        `${store.context}: an unfinished rotation to master key version ${to} was started with another new key than this one: ` +
          'complete it with that key (the LORE_NEW_MASTER_KEY of that run, or DATA_DIR/master.key.next), never another, or its re-wrapped data keys are lost',
      );
    }
    return plan('resume', from, to);
  }
  if (opensKeyCheck(keys.old, check.wrapped)) return plan('fresh', version, version + 1);
  if (opensKeyCheck(keys.next, check.wrapped)) return plan('done', version - 1, version);
  throw new Error(
    `${store.context}: the current master key does not open this keyring (${where}): its data keys are wrapped by master key version ${version}. ` +
      'Give the key Lore starts with as LORE_MASTER_KEY (or in DATA_DIR/master.key).',
  );
}

/** Records the rotation before any data key changes, so Lore refuses to start on the keyring until it is finished. */
export async function markRotation(plan: KeyringPlan, keys: { readonly old: Buffer; readonly next: Buffer }): Promise<void> {
  if (plan.state !== 'fresh') return;
  const check = await checkDoc(plan.store.documents);
  const marked: KeyringCheckDoc = {
    ...check,
    master_version: plan.from,
    rotation: {
      from: plan.from,
      to: plan.to,
      wrapped: sealKeyCheck(keys.next),
      // Carried over unchanged, so stored verifiers (API key secrets) keep matching.
      verifier_keys: sealVerifierKeys(keys.next, verifierKeys(keys.old, check)),
    },
  };
  await plan.store.documents.write([{ collection: KEYRING_COLLECTION, op: 'upsert', doc: marked }]);
}

/** Re-wraps every data key still at `from`, a batch per write; returns how many it re-wrapped. */
export async function rewrapKeyring(plan: KeyringPlan, keys: { readonly old: Buffer; readonly next: Buffer }, options: RewrapOptions): Promise<number> {
  const collection = plan.store.documents.collection<WrappedKeyDoc>(KEYRING_COLLECTION);
  let rewrapped = 0;
  let cursor: string | undefined;
  do {
    // Keyset paging by id: a re-wrapped key leaving the filter cannot shift the next page.
    const page = await collection.find({ filter: notAtVersion(plan.to), limit: options.batchSize, ...(cursor === undefined ? {} : { cursor }) });
    let docs = page.items.filter((doc) => doc.id !== KEY_CHECK_ID);
    if (options.budget !== undefined) docs = docs.slice(0, options.budget.remaining);
    const writes: DocumentWrite[] = docs.map((doc) => {
      const version = masterVersionOf(doc);
      if (version !== plan.from) {
        throw new Error(`${plan.store.context}: data key ${doc.id} is wrapped by master key version ${version}, neither ${plan.from} nor ${plan.to}; not touching it`);
      }
      let key: Buffer;
      try {
        key = unwrapDataKey(keys.old, doc.id, doc.wrapped);
      } catch {
        throw new Error(`${plan.store.context}: data key ${doc.id} (version ${version}) does not open with the current master key; it is damaged`);
      }
      return { collection: KEYRING_COLLECTION, op: 'upsert', doc: { ...doc, wrapped: wrapDataKey(keys.next, doc.id, key), master_version: plan.to } };
    });
    // One write per batch: atomic on SQLite, idempotent everywhere, so a crash loses at most a batch's work.
    if (writes.length > 0) await plan.store.documents.write(writes);
    rewrapped += writes.length;
    options.onProgress(rewrapped);
    if (options.budget !== undefined) {
      options.budget.remaining -= writes.length;
      if (options.budget.remaining <= 0) throw new Error(`injected failure after re-wrapping ${rewrapped} data keys of ${plan.store.context}`);
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return rewrapped;
}

/** The check doc becomes the new key's; then nothing may remain under another version (a running service would leave some). */
export async function finishRotation(plan: KeyringPlan): Promise<void> {
  const { documents, context } = plan.store;
  const check = await checkDoc(documents);
  if (check.rotation !== undefined) {
    const finished: KeyringCheckDoc = { id: KEY_CHECK_ID, wrapped: check.rotation.wrapped, master_version: plan.to, verifier_keys: check.rotation.verifier_keys };
    await documents.write([{ collection: KEYRING_COLLECTION, op: 'upsert', doc: finished }]);
  }
  const left = await documents.collection(KEYRING_COLLECTION).count(notAtVersion(plan.to));
  if (left > 0) {
    throw new Error(`${context}: ${left} data keys were written under the old master key during the rotation: a Lore service is running on this keyring. Stop it and run this again.`);
  }
}

async function checkDoc(documents: DocumentStore): Promise<KeyringCheckDoc> {
  const check = await documents.collection<KeyringCheckDoc>(KEYRING_COLLECTION).get(KEY_CHECK_ID);
  if (check === null) throw new Error('keyring without its master key check');
  return check;
}
