import { defineContext, periodicTask } from '@lore/platform/cqrs';
import { handle } from '@lore/platform/transport/port';
import { connectMessages, connectionMessages, connectionsConfig, integrationMessages } from '@lore/connections/contracts';
import { IntegrationQueries } from './integrations.queries';
import { ConnectionCommands } from './connection.commands';
import { ConnectionQueries } from './connection.queries';
import { ConnectionTests } from './connection-tests';
import { CredentialVault } from './credential-vault';
import { connectionsProjection } from './connections.projection';
import { CREDENTIAL_ERASURE, credentialErasureReactor } from './credential-erasure.reactor';
import { credentialReleaseReactor } from './credential-release.reactor';
import { connectionEventsPublisher } from './connection-events.publisher';
import { credentialSweep } from './credential-sweep.worker';
import { interruptedTests } from './interrupted-tests.worker';
import { CONNECTIONS, CREDENTIALS } from './connection.read-models';
import { tokenRequester } from './verification/oauth-tokens';
import { webhooksModule } from './webhooks';
import { ConnectSessions } from './connect/connect-sessions';
import { CONNECT_SESSIONS } from './connect/connect-sessions.projection';
import { connectionHealth } from './connect/connection-health.worker';
import { connectionStreamId, credentialStreamId, webhookStreamId } from '@lore/connections/domain';
import { WEBHOOKS } from './webhooks/webhook.read-models';

/** How long erasure may wait for the other processors to pass a credential's erasure (at start-up they may be catching up). */
const ERASURE_WAIT_MS = 10 * 60_000;

/** The connections context: the integration catalog, the provider models, connections with their sealed credentials, and webhooks. */
export const connectionsContext = defineContext({
  name: 'connections',
  config: connectionsConfig,
  build(deps) {
    const integrations = new IntegrationQueries();
    const messages = connectionMessages(deps.config.limits);
    const vault = new CredentialVault(deps);
    const commands = new ConnectionCommands({ ...deps, vault, requestToken: tokenRequester(deps.egress, { timeoutMs: deps.config.testTimeoutMs }) });
    const queries = new ConnectionQueries(deps.documents);
    const tests = new ConnectionTests({ ...deps, vault });
    const webhooks = webhooksModule(deps);
    const connect = connectMessages(deps.config.limits);
    const sessions = new ConnectSessions({ ...deps, commands, tests });
    return {
      handlers: [
        handle(integrationMessages.list, (q) => integrations.list(q)),
        handle(integrationMessages.get, (q) => integrations.get(q)),
        handle(integrationMessages.providerModels, (q) => integrations.providerModels(q)),
        handle(messages.create, (c) => commands.create(c)),
        handle(messages.update, (c) => commands.update(c)),
        handle(messages.delete, (c) => commands.delete(c)),
        handle(messages.test, (c) => tests.test(c)),
        handle(messages.get, (q) => queries.get(q)),
        handle(messages.list, (q) => queries.list(q)),
        handle(connect.create, (c) => sessions.create(c)),
        handle(connect.get, (q) => sessions.get(q)),
        handle(connect.authorize, (c) => sessions.authorize(c)),
        handle(connect.callback, (c) => sessions.callback(c)),
        ...webhooks.handlers,
      ],
      auditedAggregates: [
        { collection: CONNECTIONS, streamId: connectionStreamId },
        { collection: CREDENTIALS, streamId: credentialStreamId },
        { collection: WEBHOOKS, streamId: webhookStreamId },
      ],
      projections: [webhooks.watching(connectionsProjection)],
      reactors: [
        connectionEventsPublisher(deps.transport),
        credentialReleaseReactor(vault, deps.events),
        credentialErasureReactor({ ...deps, processedByOthers: (position, erased) => deps.readYourWrites.settleAllBut(CREDENTIAL_ERASURE, position, ERASURE_WAIT_MS, erased) }),
        ...webhooks.reactors,
      ],
      workers: [credentialSweep({ ...deps, vault }), interruptedTests(deps), connectionHealth({ ...deps, tests }),
        // Abandoned connect sessions end (and their verifiers' keys go) once past their time by a test's longest run.
        periodicTask({ name: 'abandoned connect sessions', firstAfterMs: 30_000, everyMs: 60_000, log: deps.log, run: () => sessions.endAbandoned(deps.config.staleTestMs), routine: true }),
        ...webhooks.workers],
      async prepare() {
        const connections = deps.documents.collection(CONNECTIONS);
        await connections.ensureIndex(['workspace_id', 'user_id', 'created_at']);
        await connections.ensureIndex(['workspace_id', 'user_id', 'integration_type', 'status']);
        await connections.ensureIndex(['status', 'updated_at']);
        await deps.documents.collection(CREDENTIALS).ensureIndex(['created_at']);
        await deps.documents.collection(CONNECT_SESSIONS).ensureIndex(['status', 'expires_at']);
        await webhooks.prepare();
      },
    };
  },
});
