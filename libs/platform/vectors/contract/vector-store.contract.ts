/**
 * The behaviour every VectorStore adapter promises (ARCHITECTURE §3.4). Each test uses fresh,
 * uniquely named indexes, collections and checkpoints, so the suite can run against a shared
 * server without cleaning it first.
 */
import { useContractContext } from './contract-context';
import type { VectorStoreFactory } from './contract-context';
import { describeDenseContract } from './dense.contract';
import { describeFilterContract } from './filter.contract';
import { describeHybridContract } from './hybrid.contract';
import { describeKeywordContract } from './keyword.contract';
import { describePointsContract } from './points.contract';
import { describeWritesContract } from './writes.contract';

export function describeVectorIndexContract(name: string, factory: VectorStoreFactory): void {
  describe(`${name}: VectorStore contract`, () => {
    const ctx = useContractContext(factory);
    describePointsContract(ctx);
    describeFilterContract(ctx);
    describeDenseContract(ctx);
    describeKeywordContract(ctx);
    describeHybridContract(ctx);
    describeWritesContract(ctx);
  });
}
