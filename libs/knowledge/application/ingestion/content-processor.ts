import { newUuid, type Clock, type Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { EmbeddingProvider } from '@lore/platform/embeddings/port';
import { handleCommand } from '@lore/platform/cqrs';
import { chunkIdOf, contentStreamId, type ContentCommand, type EmbeddingModel, type LiveContent } from '@lore/knowledge/domain';
import { chunkText } from '../chunking';
import { contentAggregate } from '../content-aggregate';
import { encodeVector } from '../chunk-shape';
import type { ContentTexts } from '../content-texts';

/** Chunks embedded and recorded together: one event of ~64 × (text + 2 KB of vector). */
const CHUNKS_PER_EVENT = 64;
/** A heartbeat may land between our read and append: decide again, the lease decides. */
const LEASE_RETRIES = 5;

/** Why an attempt stopped early: the worker is stopping, or the attempt ran out of time. */
export class AttemptAborted extends Error {
  constructor(readonly why: 'stopping' | 'timeout') {
    super(why);
  }
}

/** Resolves once no purge of a content's earlier attempts' chunks recorded up to `startedAt` is pending; rejects (unavailable) after `timeoutMs`. */
export type EarlierAttemptsPurged = (contentId: string, startedAt: Position, timeoutMs: number) => Promise<void>;

export interface Attempt {
  readonly content: LiveContent;
  readonly leaseId: string;
  /** Where the attempt's start is in the log. */
  readonly startedAt: Position;
  readonly model: EmbeddingModel;
  readonly chunkSize: number;
  readonly chunkOverlap: number;
}

/**
 * One processing attempt of one content, as appends to its stream under a lease: claim,
 * chunk with the model's own tokenizer, embed, record the chunks in batches, complete.
 * Every append is checked against the lease, so a worker that lost it (another took over
 * after it stalled, the content was deleted or reprocessed) stops at its next step.
 * Who and why come from the reaction it runs in (the workers run every attempt `reactingTo`
 * the event that asked for it): the actor is the one who added or reprocessed the content.
 */
export class ContentProcessor {
  constructor(
    private readonly deps: {
      readonly events: EventStore;
      readonly texts: ContentTexts;
      readonly clock: Clock;
      readonly leaseMs: number;
      readonly maxAttempts: number;
      readonly earlierAttemptsPurged: EarlierAttemptsPurged;
      /** How long an attempt waits for that purge before it fails as a transient error (retried). */
      readonly purgeWaitMs: number;
    },
  ) {}

  /** Null when the content is not startable now (someone holds it, it is done, or gone). */
  async claim(contentId: string, settings: { readonly model: EmbeddingModel; readonly chunkSize: number; readonly chunkOverlap: number }): Promise<Attempt | null> {
    const leaseId = newUuid();
    const now = this.deps.clock.now();
    // Retries: a concurrent write (a reprocess, another instance's claim) used to surface as a
    // conflict error and leave the content to the next sweep; deciding again on the new state
    // is safe, the decider says whether it is still startable.
    const result = await handleCommand(this.deps.events, contentAggregate, contentStreamId(contentId), {
      kind: 'start',
      leaseId,
      leaseUntil: new Date(now.getTime() + this.deps.leaseMs).toISOString(),
      chunkSize: settings.chunkSize,
      chunkOverlap: settings.chunkOverlap,
      embedding: settings.model,
      maxAttempts: this.deps.maxAttempts,
      at: now.toISOString(),
    }, { retries: LEASE_RETRIES });
    const state = result.state;
    if (result.position === null || state.status !== 'active' || state.phase !== 'processing' || state.lease?.leaseId !== leaseId) {
      // A content still uploading is asked for again with each part: its state is kept for the
      // next part's append and the next claim, which then read only that part.
      if (state.status !== 'active' || state.phase !== 'uploading') this.release(contentId);
      return null;
    }
    return { content: state, leaseId, startedAt: result.position, ...settings };
  }

  /** The attempt on this content ended (or never started): its folded state is not kept. */
  release(contentId: string): void {
    contentAggregate.cache.delete(contentStreamId(contentId));
  }

  async renew(contentId: string, leaseId: string): Promise<void> {
    const until = new Date(this.deps.clock.now().getTime() + this.deps.leaseMs).toISOString();
    await this.append(contentId, { kind: 'renew', leaseId, leaseUntil: until });
  }

  /** `progressed` is called after each step that moved the attempt forward (the caller's stall timeout). */
  async run(attempt: Attempt, provider: EmbeddingProvider, signal: AbortSignal, progressed: () => void = () => undefined): Promise<void> {
    const { content, leaseId } = attempt;
    const { texts } = this.deps;
    // Chunk ids are the same in every attempt: until the earlier attempts' chunks are purged,
    // any chunk of this one would be purged with them (chunk-purges.ts). Waiting is not a stall
    // (the caller's timeout is for a provider that does not answer): a wait that runs out fails
    // the attempt as unavailable, tried again later.
    const waiting = setInterval(progressed, 1_000);
    try {
      await this.deps.earlierAttemptsPurged(content.contentId, attempt.startedAt, this.deps.purgeWaitMs);
    } finally {
      clearInterval(waiting);
    }
    throwIfAborted(signal);
    progressed();
    const key = await texts.keyOf(content);
    const chunks = await chunkText(await texts.openParts(content), { chunkSize: attempt.chunkSize, chunkOverlap: attempt.chunkOverlap }, (texts) => provider.tokenize(texts));
    throwIfAborted(signal);
    progressed();
    const index = { name: attempt.model.index, dimensions: attempt.model.dimensions, distance: attempt.model.distance };
    for (let from = 0; from < chunks.length; from += CHUNKS_PER_EVENT) {
      const batch = chunks.slice(from, from + CHUNKS_PER_EVENT);
      const vectors = await provider.embedDocuments(batch.map((c) => c.text));
      throwIfAborted(signal);
      const positions = batch.map((chunk, i) => {
        const vector = vectors[i];
        if (vector === undefined) throw new Error('the embedding provider returned fewer vectors than texts');
        return { chunkId: chunkIdOf(content.contentId, chunk.index), chunkIndex: chunk.index, text: texts.seal(content.contentId, chunk.text, key), start: chunk.start, end: chunk.end, tokens: chunk.tokens, vector: encodeVector(vector) };
      });
      // The last batch completes the content in the same append (one commit fewer a content).
      const last = from + CHUNKS_PER_EVENT >= chunks.length;
      await this.append(content.contentId, { kind: 'add-chunks', leaseId, index, chunks: positions, at: this.now(), last });
      progressed();
    }
    // A text with no chunks (nothing but whitespace) completes on its own.
    if (chunks.length === 0) await this.append(content.contentId, { kind: 'complete', leaseId, at: this.now() });
  }

  async fail(contentId: string, leaseId: string, error: string, retryAt: Date | null): Promise<void> {
    await this.append(contentId, { kind: 'fail', leaseId, error, retryAt: retryAt?.toISOString() ?? null, at: this.now() });
  }

  private async append(contentId: string, command: ContentCommand): Promise<void> {
    await handleCommand(this.deps.events, contentAggregate, contentStreamId(contentId), command, { retries: LEASE_RETRIES });
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason instanceof AttemptAborted ? signal.reason : new AttemptAborted('stopping');
}
