import { call, mintJwt, unique, type LoreUnderTest, type Reply } from './e2e-client';

/** What the knowledge suites share: callers, polling, small request helpers and the five topics. */


export interface Owner {
  readonly token: string;
  readonly workspace: string;
  readonly user: string;
}

export async function owner(lore: LoreUnderTest, workspace = unique('ws')): Promise<Owner> {
  const user = unique('user');
  return { token: await mintJwt(lore.jwtSecret, { sub: user, workspace_id: workspace }), workspace, user };
}

export const PROCESSING_WAIT_MS = 30_000;

/** Polls a content until it is completed (or failed: then the test fails with its error). */
export async function waitCompleted(lore: LoreUnderTest, token: string, contentId: string): Promise<any> {
  const deadline = Date.now() + PROCESSING_WAIT_MS;
  let last: Reply | undefined;
  while (Date.now() < deadline) {
    last = await call(lore, 'GET', `/api/v1/contents/${contentId}`, { token });
    if (last.status !== 200) throw new Error(`GET content ${contentId}: ${last.status} ${JSON.stringify(last.body)}`);
    if (last.body.status === 'completed') return last.body;
    if (last.body.status === 'failed') throw new Error(`content ${contentId} failed: ${String(last.body.error)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`content ${contentId} not completed within ${PROCESSING_WAIT_MS} ms: ${JSON.stringify(last?.body)}`);
}

export async function createCollection(lore: LoreUnderTest, token: string, body: Record<string, unknown> = {}): Promise<any> {
  const reply = await call(lore, 'POST', '/api/v1/collections', { token, body: { name: unique('col'), ...body } });
  if (reply.status !== 201) throw new Error(`create collection: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

export async function addContent(lore: LoreUnderTest, token: string, body: Record<string, unknown>): Promise<any> {
  const reply = await call(lore, 'POST', '/api/v1/contents', { token, body });
  if (reply.status !== 201) throw new Error(`create content: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

export async function search(lore: LoreUnderTest, token: string, body: Record<string, unknown>): Promise<Reply> {
  return call(lore, 'POST', '/api/v1/collections/search', { token, body });
}

export const SEARCH_TYPES = ['vector', 'keyword', 'hybrid'] as const;
/** `{a:{a:…1}}` with `levels` objects. */
export const nested = (levels: number): Record<string, unknown> => (levels <= 1 ? { a: 1 } : { a: nested(levels - 1) });
export const ids = (results: Array<{ content_id: string }>): string[] => [...new Set(results.map((r) => r.content_id))].sort();
export const locs = (reply: Pick<Reply, 'body'>): unknown[] => (Array.isArray(reply.body?.detail) ? reply.body.detail.map((d: { loc: unknown }) => d.loc) : []);

/** Five short texts on distinct topics; each contains "lorefact" so that one keyword query matches them all. */
export const TOPICS = {
  coffee: {
    text: 'lorefact The espresso machine needs descaling with citric acid every month so the coffee keeps tasting good.',
    metadata: { topic: 'coffee', year: 2019, tags: ['drink', 'kitchen'], reviewed: true },
    source: 'https://example.test/coffee',
  },
  kubernetes: {
    text: 'lorefact Kubernetes schedules pods onto cluster nodes according to their CPU and memory resource requests.',
    metadata: { topic: 'kubernetes', year: 2021, tags: ['software'] },
    source: 'https://example.test/kubernetes',
  },
  biology: {
    text: 'lorefact Photosynthesis in green plants turns sunlight, water and carbon dioxide into glucose and oxygen.',
    metadata: { topic: 'biology', year: 2022, tags: ['science', 'plants'] },
    source: 'https://example.test/biology',
  },
  history: {
    text: 'lorefact The Peace of Westphalia, signed in 1648, ended the Thirty Years War in central Europe.',
    metadata: { topic: 'history', year: 2020, tags: ['europe'] },
    source: 'https://example.test/history',
  },
  sport: {
    text: 'lorefact Marathon runners build endurance with long slow runs, interval training and careful pacing.',
    metadata: { topic: 'sport', year: 2023, tags: ['drink', 'health'] },
    source: 'https://example.test/sport',
  },
} as const;
export type Topic = keyof typeof TOPICS;
