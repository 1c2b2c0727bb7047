import { describeEgressContract } from '@lore/platform/egress/contract';
import { createNodeEgress } from './node-egress';

describeEgressContract('node (direct)', async (options) => ({ egress: createNodeEgress(options), close: async () => undefined }));
