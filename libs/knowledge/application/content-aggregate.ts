import { AggregateStateCache } from '@lore/platform/cqrs';
import { contentDecider, upcastContentEvent, type ContentState } from '@lore/knowledge/domain';

/** Characters of sealed text the cached states may hold together (~128 MB as UTF-16): a few large uploads at once. */
const CACHED_TEXT_CHARS = 64 * 2 ** 20;

function textChars(state: ContentState): number {
  if (state.status !== 'active') return 0;
  return state.textParts.reduce((sum, part) => sum + (typeof part === 'string' ? part.length : part.sealed.length), 0);
}

/**
 * The content aggregate, with one cache of folded states for every writer of contents in the
 * process (uploads, originals, the ingestion workers, deletions): a step reads only what was
 * appended since the state it last saw, not the whole stream again. A long text arrives in
 * parts (a 19 MB file in ~95), and each part's append, the original's parts and the workers'
 * look at it read and parsed every part before it: the upload's cost grew with the square of
 * its length, all of it on the event loop every workspace shares. A step decided on a stale
 * entry conflicts and is decided again on what came after it (`handleCommand`).
 *
 * An entry holds the content's text as stored (its sealed parts) and its chunk ids: the cache
 * is bounded by the texts' size (CACHED_TEXT_CHARS) as well as by count, and a deleted
 * content's entry is its small tombstone state.
 */
export const contentAggregate = {
  name: 'content',
  decider: contentDecider,
  upcast: upcastContentEvent,
  cache: new AggregateStateCache<ContentState>({ maxEntries: 16, maxWeight: CACHED_TEXT_CHARS, weigh: textChars }),
};
