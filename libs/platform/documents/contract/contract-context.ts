import type { DocumentStore } from '@lore/platform/documents/port';
import { useFreshFixture } from '@lore/platform/testing';

export interface DocumentStoreFixture {
  readonly store: DocumentStore;
  cleanup(): Promise<void>;
}

export type DocumentStoreFactory = () => Promise<DocumentStoreFixture>;

export interface ContractContext {
  store(): DocumentStore;
  /** A collection or checkpoint name no other test, nor another run on a shared server, uses. */
  uniqueName(prefix?: string): string;
}

/** Opens a fresh fixture around every test so that tests never share a connection's state. */
export function useContractContext(factory: DocumentStoreFactory): ContractContext {
  const fixture = useFreshFixture(factory, 'document store');
  return { store: () => fixture.current().store, uniqueName: fixture.uniqueName };
}
