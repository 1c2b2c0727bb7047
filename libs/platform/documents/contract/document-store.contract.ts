/**
 * The behaviour every DocumentStore adapter promises (ARCHITECTURE §3.4). Each test uses
 * fresh, uniquely named collections and checkpoints, so the suite can run against a shared
 * server without cleaning it first.
 */
import { useContractContext } from './contract-context';
import type { DocumentStoreFactory } from './contract-context';
import { describeCrudContract } from './crud.contract';
import { describeFilterContract } from './filter.contract';
import { describePagingContract } from './paging.contract';
import { describeTextContract } from './text.contract';
import { describeWritesContract } from './writes.contract';
import { describeWorkspaceContract } from './workspace.contract';

export function describeDocumentStoreContract(name: string, factory: DocumentStoreFactory): void {
  describe(`${name}: DocumentStore contract`, () => {
    const ctx = useContractContext(factory);
    describeCrudContract(ctx);
    describeFilterContract(ctx);
    describePagingContract(ctx);
    describeWritesContract(ctx);
    describeTextContract(ctx);
    describeWorkspaceContract(ctx);
  });
}
