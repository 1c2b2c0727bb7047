import { LoreHttp, type LoreClientOptions } from './core/http';
import { optionsFromEnvironment, type LoreEnvironment } from './core/environment';
import { ApiKeys } from './resources/api-keys';
import { Audit } from './resources/audit';
import { ConnectSessions, Connections, Integrations } from './resources/connections';
import { Conversations, Messages } from './resources/conversations';
import { Events } from './resources/events';
import { Chunks, Collections, Contents } from './resources/knowledge';
import { Memories } from './resources/memories';
import { Webhooks } from './resources/webhooks';

/**
 * Lore's TypeScript client: one object per resource, typed by the OpenAPI document. Every
 * error answer is a `LoreApiError` carrying the API's `detail`; lists iterate across pages
 * (`for await (const memory of lore.memories.iterate({ user_id }))`).
 */
export class LoreClient {
  /** Every operation by path and method, for what the resources do not wrap (openapi-fetch). */
  readonly api: LoreHttp['api'];
  readonly apiKeys: ApiKeys;
  readonly collections: Collections;
  readonly contents: Contents;
  readonly chunks: Chunks;
  readonly integrations: Integrations;
  readonly connections: Connections;
  readonly connectSessions: ConnectSessions;
  readonly conversations: Conversations;
  readonly messages: Messages;
  readonly memories: Memories;
  readonly webhooks: Webhooks;
  readonly events: Events;
  readonly audit: Audit;

  constructor(options: LoreClientOptions) {
    const http = new LoreHttp(options);
    this.api = http.api;
    this.apiKeys = new ApiKeys(http);
    this.collections = new Collections(http);
    this.contents = new Contents(http);
    this.chunks = new Chunks(http);
    this.integrations = new Integrations(http);
    this.connections = new Connections(http);
    this.connectSessions = new ConnectSessions(http);
    this.conversations = new Conversations(http);
    this.messages = new Messages(http);
    this.memories = new Memories(http);
    this.webhooks = new Webhooks(http);
    this.events = new Events(http);
    this.audit = new Audit(http);
  }

  /**
   * A client configured by `LORE_API_KEY`, `LORE_BASE_URL` and `LORE_WORKSPACE_ID` (Node's
   * `process.env` by default; pass another record in a browser or a test), with `options`
   * on top. The Python SDK's `Lore()` reads the same variables.
   */
  static fromEnvironment(env: LoreEnvironment = processEnv(), options: Partial<LoreClientOptions> = {}): LoreClient {
    // A token passed in needs no key in the environment.
    const settings = optionsFromEnvironment(options.token === undefined ? env : { ...env, LORE_API_KEY: options.token });
    return new LoreClient({ ...settings, ...options });
  }
}

/** Node's environment; none in a browser. */
function processEnv(): LoreEnvironment {
  return (globalThis as { process?: { env?: LoreEnvironment } }).process?.env ?? {};
}
