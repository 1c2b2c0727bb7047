import type { z } from 'zod';
import type { Clock, Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { EventFeed, MessageHandler, Transport } from '@lore/platform/transport/port';
import type { Keyring } from '@lore/platform/crypto';
import type { ReadModelProjection, Reactor } from '@lore/platform/projections';
import type { VectorStore } from '@lore/platform/vectors/port';
import type { EmbeddingModels } from '@lore/platform/embeddings/port';
import type { Egress } from '@lore/platform/egress/port';
import type { ChatModel } from '@lore/platform/chat/port';
import type { BlobStore } from '@lore/platform/blobs/port';
import type { Rerankers } from '@lore/platform/rerank/port';

/**
 * Read-your-writes for a context's commands (ARCHITECTURE §3.6): `settle` waits until the
 * projections serving reads have applied a write (bounded, then 503); `settleReactor`
 * waits for one reactor, for the few writes whose meaning is its effect (a permanent
 * deletion is reported done once erased).
 */
export interface ReadYourWrites {
  /** `timeoutMs` defaults to READ_YOUR_WRITES_TIMEOUT_MS. */
  settle(position: Position | null, timeoutMs?: number): Promise<void>;
  /**
   * `timeoutMs` defaults to READ_YOUR_WRITES_TIMEOUT_MS; a shorter one lets a caller try something else first.
   * `streams`: besides those this work appended to, streams whose parked events answer the wait at once
   * (503): a repeated deletion appends nothing, yet waits on its stream's erasure.
   */
  settleReactor(name: string, position: Position | null, timeoutMs?: number, streams?: readonly string[]): Promise<void>;
  /**
   * For a reactor that destroys what others read (erasure): waits for every other processor,
   * then clears what they parked of `erasedStreams` (see EventProcessors.waitForAllBut); the
   * processors named in `unwaited` are not waited for (the erasure makes them forget itself).
   */
  settleAllBut(name: string, position: Position | null, timeoutMs: number, erasedStreams?: readonly string[], unwaited?: readonly string[]): Promise<void>;
  /** A wait of the caller's own (a purge's, see PurgeWorker.drained), given what is left of READ_YOUR_WRITES_TIMEOUT_MS within the request's deadline. */
  settleWithin(wait: (timeoutMs: number) => Promise<void>): Promise<void>;
}

/** What a context is built from; its host chooses the adapters. */
export interface ContextDeps<Config> {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  /** The context's own vector store, opened on first use. */
  readonly vectors: VectorStore;
  /** The context's own files (originals of uploads), opened on first use; callers seal what they put. */
  readonly blobs: BlobStore;
  /** The process's embedding models (shared by its contexts: one local model in memory). */
  readonly embeddings: EmbeddingModels;
  /** The process's rerank providers (README: Re-ranking), shared like the embedding models. */
  readonly rerankers: Rerankers;
  readonly transport: Transport;
  /** Every context's integration events as one resumable log (what webhooks deliver). */
  readonly feed: EventFeed;
  /** The process's chat model (CHAT_OPENAI_BASE_URL); null when none is configured. */
  readonly chat: ChatModel | null;
  /** Outbound HTTP to addresses users give (SSRF-guarded; LORE_EGRESS_ALLOW widens it). */
  readonly egress: Egress;
  readonly clock: Clock;
  /** The context's own configuration slice, parsed from the environment. */
  readonly config: Config;
  readonly readYourWrites: ReadYourWrites;
  /** For what no caller sees: background work that fails and retries. */
  readonly log: ContextLog;
}

export interface ContextLog {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

/** A built context: what it serves and what it runs from the event log. */
export interface ContextParts {
  readonly handlers: readonly MessageHandler[];
  /** Document and vector read models: read-your-writes waits for all of them. */
  readonly projections: readonly ReadModelProjection[];
  readonly reactors: readonly Reactor[];
  /** Prepares the read models (indexes) before the processors start. */
  readonly prepare?: () => Promise<void>;
  /**
   * Long-running work the context does besides reacting to events (the ingestion workers):
   * started after the processors, stopped before them.
   */
  readonly workers?: readonly { start(): Promise<void>; stop(): Promise<void> }[];
  /**
   * Where a workspace's streams are found for `audit verify` (README "Audit and tamper
   * evidence"): one entry per aggregate type. Omitted only by contexts without aggregates.
   */
  readonly auditedAggregates?: readonly AuditedAggregate[];
}

/**
 * An aggregate type as the workspace audit finds it: a read-model collection whose documents
 * carry the aggregate's id as `id` and its workspace as `workspace_id` (indexed), and the
 * stream an id is stored in.
 */
export interface AuditedAggregate {
  readonly collection: string;
  readonly streamId: (aggregateId: string) => string;
}

/**
 * The one definition of a context's service half (its edge half is in `libs/<context>/http`):
 * read by the standalone app, the service mains, the rebuild tool and `/ready` through the
 * registry in `apps/contexts.ts`.
 */
export interface ContextDefinition<Config = unknown> {
  readonly name: string;
  /** Parses the context's environment variables (defaults applied); shared with its edge. */
  readonly config: z.ZodType<Config>;
  readonly build: (deps: ContextDeps<Config>) => ContextParts;
}

/** Keeps the config type of a definition tied to its schema. */
export function defineContext<Config>(definition: ContextDefinition<Config>): ContextDefinition<Config> {
  return definition;
}
