import type { Doc, DocumentStore, Filter, FindOptions, Page } from './documents.port';

/** A read-model document that belongs to one workspace. */
export interface WorkspaceDoc extends Doc {
  readonly workspace_id: string;
}

/** A collection as one workspace sees it: reads only, each confined to the workspace. */
export interface WorkspaceCollection<T extends WorkspaceDoc> {
  /** Null when absent or another workspace's: the two are indistinguishable (a 404, never a leak). */
  get(id: string): Promise<T | null>;
  find(options?: FindOptions): Promise<Page<T>>;
  count(filter?: Filter): Promise<number>;
}

/**
 * The one place a query's reads are confined to the caller's workspace: the workspace is
 * added to every filter here (over any `workspace_id` the caller's filter names, so no filter
 * widens it), and a document of another workspace is never returned by id. Queries read
 * workspace-owned read models through it rather than through `DocumentStore.collection`.
 */
export function workspaceCollection<T extends WorkspaceDoc>(documents: DocumentStore, name: string, workspaceId: string): WorkspaceCollection<T> {
  const collection = documents.collection<T>(name);
  const confined = (filter: Filter = {}): Filter => ({ ...filter, workspace_id: workspaceId });
  return {
    async get(id) {
      const doc = await collection.get(id);
      return doc !== null && doc.workspace_id === workspaceId ? doc : null;
    },
    find: (options = {}) => collection.find({ ...options, filter: confined(options.filter) }),
    count: (filter) => collection.count(confined(filter)),
  };
}
