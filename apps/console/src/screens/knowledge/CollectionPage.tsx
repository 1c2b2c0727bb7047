import { useEffect, useRef, useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import type { Content } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { useAction } from '../../ui/action';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { SelectField } from '../../ui/fields';
import { offsetPage, skipOf, usePaged } from '../../ui/paging';
import { Loading } from '../../ui/states';
import { CollectionFacts } from './CollectionFacts';
import { CollectionForm } from './CollectionForm';
import { useContentEvents, type ContentEvent } from './content-events';
import { ContentsTable } from './ContentsTable';
import { UploadZone } from './UploadZone';
import { useResource } from './use-resource';

const PAGE_SIZE = 25;
const STATUSES = [
  { value: '', label: 'Any status' },
  { value: 'new', label: 'new' },
  { value: 'processing', label: 'processing' },
  { value: 'completed', label: 'completed' },
  { value: 'failed', label: 'failed' },
] as const;
type StatusFilter = (typeof STATUSES)[number]['value'];
/** Without the event stream (a key lacking events:read), unfinished contents are re-read this often. */
const POLL_MS = 2000;
/** How often a content is read again (250 ms apart, doubling up to 2 s) until its record shows the status its last event announced. */
const STALE_RETRIES = 30;
const STALE_RETRY_MS = 250;

/** One collection: its facts and settings, uploads, and its contents with live processing status. */
export function CollectionPage() {
  const { collectionId = '' } = useParams<{ collectionId: string }>();
  const { lore } = useLore();
  const [, navigate] = useLocation();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const removal = useAction();
  const [status, setStatus] = useState<StatusFilter>('');
  const collection = useResource(() => lore.collections.get(collectionId), collectionId);
  const contents = usePaged<Content>(async (token) => {
    const skip = skipOf(token);
    const page = await lore.contents.list({ collection_id: collectionId, skip, limit: PAGE_SIZE, sort_by: 'created_at', sort_order: 'desc', ...(status === '' ? {} : { status }) });
    return offsetPage(page.contents, skip, page.has_more);
  }, `${collectionId}/${status}`);

  // The status each content's last event announced. The read model a GET answers from may not
  // have caught up with the event yet (they are separate processors), and GETs may answer out
  // of order: a record with another status is read again shortly rather than shown.
  const announced = useRef(new Map<string, string>());
  const refresh = async (contentId: string, tries = 0): Promise<void> => {
    const next = await lore.contents.get(contentId).catch(() => null);
    if (next === null) return;
    const expected = announced.current.get(contentId);
    if (expected !== undefined && expected !== next.status) {
      if (tries < STALE_RETRIES) setTimeout(() => void refresh(contentId, tries + 1), Math.min(STALE_RETRY_MS * 2 ** tries, 2000));
      return;
    }
    contents.update((items) => (items.some((c) => c.id === next.id) ? items.map((c) => (c.id === next.id ? next : c)) : [next, ...items]));
    if (next.status === 'completed' || next.status === 'failed') collection.reload();
  };
  // The upload's answer may come after its content's first events (the stream can be quicker):
  // a row they already put in the list is newer than the answer, which is added only when absent.
  const uploaded = (content: Content) => {
    contents.update((items) => (items.some((c) => c.id === content.id) ? items : [content, ...items]));
    if (announced.current.has(content.id)) void refresh(content.id);
  };
  const onEvent = (event: ContentEvent) => {
    announced.current.set(event.content_id, event.status);
    if (event.status === 'deleted') {
      contents.update((items) => items.filter((c) => c.id !== event.content_id));
      collection.reload();
      return;
    }
    // The status shows at once; the rest of the record (reason, chunk count) once it is read.
    const status = event.status as Content['status'];
    contents.update((items) => items.map((c) => (c.id === event.content_id ? { ...c, status, ...(event.chunks === null || status !== 'completed' ? {} : { chunk_count: event.chunks }) } : c)));
    void refresh(event.content_id);
  };
  const unfinished = contents.items.filter((c) => c.status === 'new' || c.status === 'processing').map((c) => c.id);
  const live = useContentEvents(lore, collectionId, { onEvent, onOpen: () => unfinished.forEach((id) => void refresh(id)) });
  useEffect(() => {
    if (live.live || unfinished.length === 0) return;
    const timer = setInterval(() => unfinished.forEach((id) => void refresh(id)), POLL_MS);
    return () => clearInterval(timer);
  });

  if (collection.value === null) return collection.error === null ? <Loading what="collection" /> : <ErrorBanner error={collection.error} />;
  const current = collection.value;
  const remove = async () => {
    await removal.run(async () => {
      await lore.collections.delete(current.id);
      navigate('/');
    });
    setDeleting(false);
  };

  return (
    <section aria-labelledby="collection-title" className="stack">
      <p>
        <Link href="/">← Collections</Link>
      </p>
      <div className="page-head">
        <h1 id="collection-title">{current.name}</h1>
        <div className="row">
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
            Edit settings
          </button>
          <button type="button" className="danger" onClick={() => setDeleting(true)}>
            Delete collection
          </button>
        </div>
      </div>
      <ErrorBanner error={removal.error} />
      <div className={editing ? 'stack' : 'grid-2'}>
        {editing ? (
          <CollectionForm
            existing={current}
            onSaved={(saved) => {
              collection.set(saved);
              setEditing(false);
            }}
            onCancel={() => setEditing(false)}
          />
        ) : (
          <CollectionFacts collection={current} />
        )}
        <UploadZone collectionId={current.id} onUploaded={uploaded} />
      </div>
      <h2>Contents</h2>
      <p className="small muted" role="status">
        {live.live ? 'Processing status updates live (event stream).' : live.error === null ? '' : `Live status unavailable (${errorText(live.error)}); refreshing every ${POLL_MS / 1000} s.`}
      </p>
      <div className="row">
        <SelectField label="Status" name="status" value={status} onChange={setStatus} options={STATUSES} />
      </div>
      <ContentsTable paged={contents} collectionId={current.id} />
      <ConfirmDialog open={deleting} title={`Delete the collection ${current.name}?`} confirmLabel="Delete collection" busy={removal.busy} onConfirm={() => void remove()} onCancel={() => setDeleting(false)}>
        <p>Every content, chunk and vector in it is erased for good.</p>
      </ConfirmDialog>
    </section>
  );
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
