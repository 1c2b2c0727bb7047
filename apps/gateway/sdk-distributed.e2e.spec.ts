import { describeWithServer } from '@lore/platform/testing';
import { describeSdkConversations, describeSdkKnowledge, describeSdkPlatform, describeMcpTools, httpTransport, mcpClient, SDK_TEST_ENV, type LoreUnderTest } from '@lore/client/e2e';
import { modelsDirForTests } from '@lore/platform/embeddings/contract';
import { startDistributedTopology, type DistributedTopology } from './distributed-topology.fixture';

const JWT_SECRET = 'sdk-distributed-secret';

/** The TypeScript SDK and the gateway's MCP server against the gateway and every context as separate processes over NATS. */
describeWithServer('NATS_URL', 'TypeScript SDK against the distributed topology', (natsUrl) => {
  let topology: DistributedTopology;
  const lore: LoreUnderTest = { url: '', jwtSecret: JWT_SECRET };

  beforeAll(async () => {
    topology = await startDistributedTopology({ natsUrl, subjectPrefix: `sdk${process.pid}`, env: { AUTH_JWT_SECRET: JWT_SECRET, MODELS_DIR: modelsDirForTests(), ...SDK_TEST_ENV } });
    Object.assign(lore, { url: topology.url });
  }, 90_000);
  afterAll(() => topology?.stop());

  describeSdkKnowledge(() => lore);
  describeSdkConversations(() => lore);
  describeSdkPlatform(() => lore);
  describeMcpTools('Streamable HTTP at /mcp', () => lore, (l, key) => mcpClient(httpTransport(l, key)));
});
