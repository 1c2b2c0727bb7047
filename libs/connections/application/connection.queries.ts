import { notFound, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import { workspaceCollection, type DocumentStore, type Filter } from '@lore/platform/documents/port';
import type { ConnectionMessages, ConnectionRecord } from '@lore/connections/contracts';
import { CONNECTIONS, CREDENTIALS, toConnectionRecord, type ConnectionDoc, type CredentialDoc } from './connection.read-models';

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

/** One connection of its owner with its credential summary; another user's or workspace's is not found. */
export async function readConnection(documents: DocumentStore, owner: Owner, connectionId: string): Promise<ConnectionRecord> {
  const doc = await workspaceCollection<ConnectionDoc>(documents, CONNECTIONS, owner.workspaceId).get(connectionId);
  if (doc === null || doc.user_id !== owner.userId) throw notFound('Connection');
  const credential = doc.credential_id === null ? null : await workspaceCollection<CredentialDoc>(documents, CREDENTIALS, owner.workspaceId).get(doc.credential_id);
  return toConnectionRecord(doc, credential);
}

export class ConnectionQueries {
  constructor(private readonly documents: DocumentStore) {}

  get(ref: ValidRequestIn<ConnectionMessages, 'get'>): Promise<ReplyIn<ConnectionMessages, 'get'>> {
    return readConnection(this.documents, ref, ref.connectionId);
  }

  /** The owner's connections, filtered and paged; label search is a case-insensitive substring. */
  async list(query: ValidRequestIn<ConnectionMessages, 'list'>): Promise<ReplyIn<ConnectionMessages, 'list'>> {
    const filter: Filter = {
      user_id: query.userId,
      ...(query.integration === undefined ? {} : { integration: query.integration }),
      ...(query.integrationType === undefined ? {} : { integration_type: query.integrationType }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.search === undefined ? {} : { label: { $icontains: query.search } }),
    };
    const connections = workspaceCollection<ConnectionDoc>(this.documents, CONNECTIONS, query.workspaceId);
    const [total, page] = await Promise.all([
      connections.count(filter),
      connections.find({ filter, sort: [[query.sortBy, query.sortOrder], ['id', query.sortOrder]], skip: query.skip, limit: query.limit }),
    ]);
    const credentialIds = [...new Set(page.items.map((doc) => doc.credential_id).filter((id): id is string => id !== null))];
    const credentials = credentialIds.length === 0 ? [] : (await workspaceCollection<CredentialDoc>(this.documents, CREDENTIALS, query.workspaceId).find({ filter: { id: { $in: credentialIds } } })).items;
    const byId = new Map(credentials.map((doc) => [doc.id, doc]));
    return { items: page.items.map((doc) => toConnectionRecord(doc, doc.credential_id === null ? null : (byId.get(doc.credential_id) ?? null))), total };
  }
}
