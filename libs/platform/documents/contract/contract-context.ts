import { randomBytes } from 'node:crypto';
import type { DocumentStore } from '@lore/platform/documents/port';

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
  const run = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  let counter = 0;
  let fixture: DocumentStoreFixture | undefined;

  beforeEach(async () => {
    fixture = await factory();
  });
  afterEach(async () => {
    const current = fixture;
    fixture = undefined;
    await current?.cleanup();
  });

  return {
    store: () => {
      if (!fixture) throw new Error('the document store fixture is only available inside a test');
      return fixture.store;
    },
    uniqueName: (prefix = 'c') => `${prefix}_${run}_${++counter}`,
  };
}
