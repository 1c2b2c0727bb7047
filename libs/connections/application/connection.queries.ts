import { notFound, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { DocumentStore, Filter } from '@lore/platform/documents/port';
import type { ConnectionMessages, ConnectionRecord } from '@lore/connections/contracts';
import { CONNECTIONS, CREDENTIALS, toConnectionRecord, type ConnectionDoc, type CredentialDoc } from './connection.read-models';

interface Owner {
  readonly workspaceId: string;
  readonly userId: string;
}

/** One connection of its owner with its credential summary; another user's or workspace's is not found. */
export async function readConnection(documents: DocumentStore, owner: Owner, connectionId: string): Promise<ConnectionRecord> {
  const doc = await documents.collection<ConnectionDoc>(CONNECTIONS).get(connectionId);
  if (doc === null || doc.workspace_id !== owner.workspaceId || doc.user_id !== owner.userId) throw notFound('Connection');
  const credential = doc.credential_id === null ? null : await documents.collection<CredentialDoc>(CREDENTIALS).get(doc.credential_id);
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
      workspace_id: query.workspaceId,
      user_id: query.userId,
      ...(query.integration === undefined ? {} : { integration: query.integration }),
      ...(query.integrationType === undefined ? {} : { integration_type: query.integrationType }),
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.search === undefined ? {} : { label: { $icontains: query.search } }),
    };
    const connections = this.documents.collection<ConnectionDoc>(CONNECTIONS);
    const [total, page] = await Promise.all([
      connections.count(filter),
      connections.find({ filter, sort: [[query.sortBy, query.sortOrder], ['id', query.sortOrder]], skip: query.skip, limit: query.limit }),
    ]);
    const credentialIds = [...new Set(page.items.map((doc) => doc.credential_id).filter((id): id is string => id !== null))];
    const credentials = credentialIds.length === 0 ? [] : (await this.documents.collection<CredentialDoc>(CREDENTIALS).find({ filter: { id: { $in: credentialIds } } })).items;
    const byId = new Map(credentials.map((doc) => [doc.id, doc]));
    return { items: page.items.map((doc) => toConnectionRecord(doc, doc.credential_id === null ? null : (byId.get(doc.credential_id) ?? null))), total };
  }
}
