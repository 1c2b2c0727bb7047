import { conflict, notFound, type Decider } from '@lore/platform/kernel';
import { assertAccess, type Access } from './access';
import type { EmbeddingModel } from './collection.events';
import type { ChunkPosition, ContentEvent, OriginalFile } from './content.events';
import type { ContentText } from './content-text';
import { ChunkIds } from './chunk-ids';

/** Where processing stands; `waiting` is a transient failure waiting for its retry (shown as `processing`). */
export type Phase = 'uploading' | 'new' | 'processing' | 'waiting' | 'completed' | 'failed';

export interface LiveContent {
  readonly status: 'active';
  readonly contentId: string;
  readonly collectionId: string;
  readonly workspaceId: string;
  readonly name: string;
  readonly source: string | null;
  readonly metadata: Record<string, unknown>;
  /** The text's parts so far, sealed (or plain, in contents added before sealing). */
  readonly textParts: readonly ContentText[];
  /** UTF-8 bytes of the parts so far. */
  readonly receivedBytes: number;
  /** Parts of the text still to come (`uploading` until 0), of `partsTotal`; `sizeBytes` is the whole text's. */
  readonly partsMissing: number;
  readonly partsTotal: number;
  readonly sizeBytes: number;
  readonly phase: Phase;
  /** Attempts started in all; `attemptsSinceRequest` since the upload or the last reprocess. */
  readonly attempt: number;
  readonly attemptsSinceRequest: number;
  readonly lease: { readonly leaseId: string; readonly until: string } | null;
  readonly retryAt: string | null;
  /** Chunk ids of the current attempt → their index. */
  readonly chunks: ChunkIds;
  /** The uploaded file: `arriving` until all its parts are stored; null when none is kept. */
  readonly original: { readonly file: OriginalFile; readonly state: 'arriving' | 'kept' } | null;
}

/**
 * A deleted content keeps whose it was until its erasure deletes the stream: its owner's repeated
 * DELETE then follows the erasure under way (202 while it runs) rather than finding nothing.
 */
export type DeletedContent = { readonly status: 'deleted'; readonly contentId: string; readonly collectionId: string; readonly workspaceId: string };
export type ContentState = { readonly status: 'absent' } | LiveContent | DeletedContent;

interface Lease {
  readonly leaseId: string;
}

export type ContentCommand =
  | { readonly kind: 'add'; readonly event: Extract<ContentEvent, { type: 'knowledge.ContentAdded' }>['data'] }
  /** `bytes`: the part's UTF-8 length, measured before it was sealed. */
  | { readonly kind: 'append-text'; readonly access: Access; readonly part: number; readonly text: ContentText; readonly bytes: number }
  /** A worker's claim. Taken when new, when a retry is due, or when the holder's lease lapsed. */
  | { readonly kind: 'start'; readonly leaseId: string; readonly leaseUntil: string; readonly chunkSize: number; readonly chunkOverlap: number; readonly embedding: EmbeddingModel; readonly maxAttempts: number; readonly at: string }
  | (Lease & { readonly kind: 'renew'; readonly leaseUntil: string })
  /**
   * `last`: the attempt's final batch, completed in the same append (ChunksAdded, then
   * ProcessingCompleted): one commit and one fsync fewer per content, and the chunks and the
   * completion land together or not at all.
   */
  | (Lease & {
      readonly kind: 'add-chunks';
      readonly index: { readonly name: string; readonly dimensions: number; readonly distance: 'cosine' };
      readonly chunks: readonly ChunkPosition[];
      readonly at: string;
      readonly last?: boolean;
    })
  | (Lease & { readonly kind: 'complete'; readonly at: string })
  | (Lease & { readonly kind: 'fail'; readonly error: string; readonly retryAt: string | null; readonly at: string })
  | {
      readonly kind: 'reprocess';
      readonly access: Access;
      readonly requestedBy: string;
      readonly at: string;
      /** A text extracted again from the original, replacing the stored one (its first part; the rest follows as `append-text`). */
      readonly text?: { readonly first: ContentText; readonly firstBytes: number; readonly sizeBytes: number; readonly parts: number };
    }
  | { readonly kind: 'keep-original'; readonly access: Access; readonly at: string }
  | { readonly kind: 'discard-original'; readonly at: string }
  | {
      readonly kind: 'edit-chunk';
      readonly access: Access;
      readonly chunkId: string;
      readonly chunkIndex: number;
      readonly index: string;
      readonly source: string | null;
      readonly text: ContentText;
      readonly metadata: Record<string, unknown>;
      readonly vector: string | null;
      readonly editedBy: string;
      readonly at: string;
    }
  | { readonly kind: 'delete-chunk'; readonly access: Access; readonly chunkId: string; readonly at: string }
  | { readonly kind: 'delete'; readonly access: Access | null; readonly cause: 'request' | 'collection'; readonly at: string };

/** The content as the caller may see it, else "Content not found". */
export function visibleContent(state: ContentState, access: Access, what = 'Content'): LiveContent {
  if (state.status !== 'active') throw notFound(what);
  assertAccess(access, state, what);
  return state;
}

/** Why a worker may not go on: its lease was taken over, or the content was deleted or reprocessed. */
export class LeaseLostError extends Error {}

function leased(state: ContentState, lease: Lease): LiveContent {
  if (state.status !== 'active' || state.phase !== 'processing' || state.lease?.leaseId !== lease.leaseId) throw new LeaseLostError('the processing lease was lost');
  return state;
}

export function startable(state: LiveContent, now: string): boolean {
  switch (state.phase) {
    case 'uploading':
      return false;
    case 'new':
      return true;
    case 'waiting':
      return state.retryAt === null || state.retryAt <= now;
    case 'processing':
      return state.lease === null || state.lease.until <= now;
    case 'completed':
    case 'failed':
      return false;
  }
}

/**
 * Chunks change only on a completed content. Checked before the chunk's existence: an attempt
 * starts with no chunks, so a user editing a chunk they just listed while the content is being
 * reprocessed got "Chunk not found" instead of being told to wait; and a failed content's
 * message said "being processed".
 */
function assertChunksSettled(content: LiveContent, verb: 'edit' | 'delete'): void {
  switch (content.phase) {
    case 'completed':
      return;
    case 'failed':
      throw conflict(`The content's processing failed; reprocess it, then ${verb} its chunks`);
    case 'uploading':
    case 'new':
    case 'processing':
    case 'waiting':
      throw conflict(`The content is being processed; ${verb} its chunks once it is completed`);
  }
}

/**
 * The content whose chunk `chunkId` the caller may change now, else the decider's refusal: not
 * the caller's (404), not completed (409), no such chunk (404). Exported so that an edit can be
 * refused before the work it would carry (embedding a new text) is done.
 */
export function contentOfChangeableChunk(state: ContentState, access: Access, chunkId: string, verb: 'edit' | 'delete'): LiveContent {
  const content = visibleContent(state, access, 'Chunk');
  assertChunksSettled(content, verb);
  if (!content.chunks.has(chunkId)) throw notFound('Chunk');
  return content;
}

/**
 * The one refusal of a reprocess of a visible content: its text is still arriving. Exported so
 * that a reprocess is refused before its kept original is opened and read again.
 */
export function assertReprocessable(content: LiveContent): void {
  if (content.phase === 'uploading') throw conflict('The content\'s text is still arriving; reprocess it once it is complete');
}

export const contentDecider: Decider<ContentCommand, ContentState, ContentEvent> = {
  initialState: () => ({ status: 'absent' }),

  decide(command, state) {
    switch (command.kind) {
      case 'add':
        if (state.status !== 'absent') throw conflict(`content ${command.event.contentId} already exists`);
        return [{ type: 'knowledge.ContentAdded', data: command.event }];
      case 'append-text': {
        const content = visibleContent(state, command.access);
        const expected = content.partsTotal - content.partsMissing;
        if (content.phase !== 'uploading' || command.part !== expected) throw conflict(`expected part ${expected} of the content's text, got part ${command.part}`);
        const bytes = content.receivedBytes + command.bytes;
        const last = content.partsMissing === 1;
        if (bytes > content.sizeBytes || (last && bytes !== content.sizeBytes)) throw conflict(`the parts hold ${bytes} bytes, not the ${content.sizeBytes} announced`);
        return [{ type: 'knowledge.ContentTextAppended', data: { contentId: content.contentId, part: command.part, text: command.text, bytes: command.bytes } }];
      }
      case 'start': {
        if (state.status !== 'active' || !startable(state, command.at)) return [];
        const base = { contentId: state.contentId, collectionId: state.collectionId };
        // A lapsed lease after the last allowed attempt: its worker died each time; give up, saying so.
        if (state.phase === 'processing' && state.attemptsSinceRequest >= command.maxAttempts) {
          const times = state.attemptsSinceRequest === 1 ? 'once' : `${state.attemptsSinceRequest} times`;
          const error = `Processing was interrupted ${times} (the worker stopped before finishing, e.g. the service was killed); reprocess to try again`;
          return [{ type: 'knowledge.ContentProcessingFailed', data: { ...base, attempt: state.attempt, error, retryAt: null, failedAt: command.at } }];
        }
        return [
          {
            type: 'knowledge.ContentProcessingStarted',
            data: {
              ...base,
              attempt: state.attempt + 1,
              leaseId: command.leaseId,
              leaseUntil: command.leaseUntil,
              chunkSize: command.chunkSize,
              chunkOverlap: command.chunkOverlap,
              embedding: command.embedding,
              startedAt: command.at,
            },
          },
        ];
      }
      case 'renew': {
        const content = leased(state, command);
        return [{ type: 'knowledge.ContentLeaseRenewed', data: { contentId: content.contentId, leaseId: command.leaseId, leaseUntil: command.leaseUntil } }];
      }
      case 'add-chunks': {
        const content = leased(state, command);
        const added: ContentEvent = {
          type: 'knowledge.ContentChunksAdded',
          data: {
            contentId: content.contentId,
            collectionId: content.collectionId,
            workspaceId: content.workspaceId,
            attempt: content.attempt,
            index: command.index,
            contentName: content.name,
            source: content.source,
            metadata: content.metadata,
            chunks: [...command.chunks],
            addedAt: command.at,
          },
        };
        if (command.last !== true) return [added];
        return [added, completedEvent(leased(contentDecider.evolve(content, added), command), command.at)];
      }
      case 'complete':
        return [completedEvent(leased(state, command), command.at)];
      case 'fail': {
        const content = leased(state, command);
        return [
          {
            type: 'knowledge.ContentProcessingFailed',
            data: { contentId: content.contentId, collectionId: content.collectionId, attempt: content.attempt, error: command.error, retryAt: command.retryAt, failedAt: command.at },
          },
        ];
      }
      case 'reprocess': {
        const content = visibleContent(state, command.access);
        assertReprocessable(content);
        if (content.phase === 'new' && command.text === undefined) return [];
        const data = { contentId: content.contentId, collectionId: content.collectionId, requestedBy: command.requestedBy, requestedAt: command.at };
        return [{ type: 'knowledge.ContentReprocessRequested', data: command.text === undefined ? data : { ...data, text: command.text } }];
      }
      case 'keep-original': {
        const content = visibleContent(state, command.access);
        if (content.original === null) throw conflict('The content has no original file to keep');
        if (content.original.state === 'kept') return [];
        return [{ type: 'knowledge.ContentOriginalKept', data: { contentId: content.contentId, file: content.original.file, keptAt: command.at } }];
      }
      case 'discard-original': {
        if (state.status !== 'active' || state.original === null) return [];
        return [{ type: 'knowledge.ContentOriginalDiscarded', data: { contentId: state.contentId, reason: 'retention', discardedAt: command.at } }];
      }
      case 'edit-chunk': {
        const content = contentOfChangeableChunk(state, command.access, command.chunkId, 'edit');
        const { kind: _kind, access: _access, at, ...edit } = command;
        return [{ type: 'knowledge.ChunkEdited', data: { ...edit, contentId: content.contentId, collectionId: content.collectionId, editedAt: at } }];
      }
      case 'delete-chunk': {
        const content = contentOfChangeableChunk(state, command.access, command.chunkId, 'delete');
        const chunkIndex = content.chunks.get(command.chunkId) ?? 0;
        return [{ type: 'knowledge.ChunkDeleted', data: { contentId: content.contentId, collectionId: content.collectionId, chunkId: command.chunkId, chunkIndex, deletedAt: command.at } }];
      }
      case 'delete': {
        if (state.status !== 'active') {
          if (command.access === null) return []; // a cascade meeting a content already gone
          // Its owner deleting it again while its erasure runs: nothing new; the caller follows that erasure.
          if (state.status === 'deleted') {
            assertAccess(command.access, state, 'Content');
            return [];
          }
        }
        const content = command.access === null ? (state as LiveContent) : visibleContent(state, command.access);
        return [
          {
            type: 'knowledge.ContentDeleted',
            data: { contentId: content.contentId, collectionId: content.collectionId, workspaceId: content.workspaceId, cause: command.cause, deletedAt: command.at },
          },
        ];
      }
    }
  },

  evolve(state, event) {
    if (event.type === 'knowledge.ContentAdded') {
      const d = event.data;
      return {
        status: 'active',
        contentId: d.contentId,
        collectionId: d.collectionId,
        workspaceId: d.workspaceId,
        name: d.name,
        source: d.source,
        metadata: d.metadata,
        textParts: [d.text],
        receivedBytes: d.textBytes ?? plainBytes(d.text),
        partsMissing: (d.parts ?? 1) - 1,
        partsTotal: d.parts ?? 1,
        sizeBytes: d.sizeBytes,
        phase: (d.parts ?? 1) > 1 ? 'uploading' : 'new',
        attempt: 0,
        attemptsSinceRequest: 0,
        lease: null,
        retryAt: null,
        chunks: ChunkIds.none,
        original: d.original === undefined ? null : { file: d.original, state: 'arriving' },
      };
    }
    if (event.type === 'knowledge.ContentDeleted') {
      const { contentId, collectionId, workspaceId } = event.data;
      return { status: 'deleted', contentId, collectionId, workspaceId };
    }
    if (state.status !== 'active') return state;
    switch (event.type) {
      case 'knowledge.ContentTextAppended': {
        const partsMissing = state.partsMissing - 1;
        const d = event.data;
        return { ...state, textParts: [...state.textParts, d.text], receivedBytes: state.receivedBytes + (d.bytes ?? plainBytes(d.text)), partsMissing, phase: partsMissing === 0 ? 'new' : 'uploading' };
      }
      case 'knowledge.ContentProcessingStarted':
        return {
          ...state,
          phase: 'processing',
          attempt: event.data.attempt,
          attemptsSinceRequest: state.attemptsSinceRequest + 1,
          lease: { leaseId: event.data.leaseId, until: event.data.leaseUntil },
          retryAt: null,
          chunks: ChunkIds.none,
        };
      case 'knowledge.ContentLeaseRenewed':
        return state.lease?.leaseId === event.data.leaseId ? { ...state, lease: { leaseId: event.data.leaseId, until: event.data.leaseUntil } } : state;
      case 'knowledge.ContentChunksAdded': {
        return { ...state, chunks: state.chunks.with(event.data.chunks) };
      }
      case 'knowledge.ContentProcessingCompleted':
        return { ...state, phase: 'completed', lease: null };
      case 'knowledge.ContentProcessingFailed':
        return { ...state, phase: event.data.retryAt === null ? 'failed' : 'waiting', lease: null, retryAt: event.data.retryAt };
      case 'knowledge.ContentReprocessRequested': {
        const reset = { ...state, phase: 'new' as const, lease: null, retryAt: null, attemptsSinceRequest: 0 };
        const text = event.data.text;
        if (text === undefined) return reset;
        return { ...reset, textParts: [text.first], receivedBytes: text.firstBytes, sizeBytes: text.sizeBytes, partsTotal: text.parts, partsMissing: text.parts - 1, phase: text.parts > 1 ? 'uploading' : 'new' };
      }
      case 'knowledge.ContentOriginalKept':
        return state.original === null ? state : { ...state, original: { ...state.original, state: 'kept' } };
      case 'knowledge.ContentOriginalDiscarded':
        return { ...state, original: null };
      case 'knowledge.ChunkEdited':
        return state;
      case 'knowledge.ChunkDeleted': {
        return { ...state, chunks: state.chunks.without(event.data.chunkId) };
      }
    }
  },
};

function completedEvent(content: LiveContent, at: string): ContentEvent {
  return {
    type: 'knowledge.ContentProcessingCompleted',
    data: { contentId: content.contentId, collectionId: content.collectionId, attempt: content.attempt, chunkCount: content.chunks.size, completedAt: at },
  };
}

/**
 * UTF-8 length of a plain text, without Node's Buffer (the domain uses no Node built-ins).
 * Sealed texts come with their length in the event; one without it counts as 0.
 */
function plainBytes(text: ContentText): number {
  return typeof text === 'string' ? new TextEncoder().encode(text).length : 0;
}
