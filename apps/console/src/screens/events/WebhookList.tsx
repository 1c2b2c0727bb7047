import { useState } from 'react';
import type { LoreClient, Webhook } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { PagedTable, type Column } from '../../ui/PagedTable';
import { offsetPage, skipOf, usePaged, type Page } from '../../ui/paging';
import { useAction } from '../../ui/action';
import { DeliveryLog } from './DeliveryLog';

const PAGE_SIZE = 20;

async function webhookPage(lore: LoreClient, token: string | null): Promise<Page<Webhook>> {
  const skip = skipOf(token);
  const page = await lore.webhooks.list({ skip, limit: PAGE_SIZE });
  return offsetPage(page.data, skip, page.has_more);
}

/** The workspace's webhooks: enable or disable one, see its delivery log, delete it. */
export function WebhookList({ version }: { version: number }) {
  const { lore } = useLore();
  const paged = usePaged((token) => webhookPage(lore, token), `webhooks/${version}`);
  const [open, setOpen] = useState<Webhook | undefined>();
  const [deleting, setDeleting] = useState<Webhook | undefined>();
  const request = useAction();
  const replace = (saved: Webhook) => paged.update((items) => items.map((item) => (item.id === saved.id ? saved : item)));

  const toggle = (webhook: Webhook) => void request.run(async () => replace(await lore.webhooks.update(webhook.id, { status: webhook.status === 'active' ? 'disabled' : 'active' })));
  const remove = (webhook: Webhook) => {
    setDeleting(undefined);
    if (open?.id === webhook.id) setOpen(undefined);
    void request.run(async () => {
      await lore.webhooks.delete(webhook.id);
      paged.update((items) => items.filter((item) => item.id !== webhook.id));
    });
  };

  const columns: readonly Column<Webhook>[] = [
    { header: 'Endpoint', cell: (w) => <><code>{w.url}</code>{w.description ? <div className="muted small">{w.description}</div> : null}</> },
    { header: 'Events', cell: (w) => w.event_types.join(', ') || 'every event' },
    { header: 'Status', cell: (w) => <>{w.status}{w.disabled_reason ? <div className="muted small">{w.disabled_reason}</div> : null}</> },
    {
      header: 'Actions',
      cell: (w) => (
        <span className="row">
          <button type="button" onClick={() => setOpen(w)} aria-pressed={open?.id === w.id}>Deliveries</button>
          <button type="button" disabled={request.busy} onClick={() => toggle(w)}>{w.status === 'active' ? 'Disable' : 'Enable'}</button>
          <button type="button" className="danger" onClick={() => setDeleting(w)}>Delete</button>
        </span>
      ),
    },
  ];

  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <ErrorBanner error={request.error} onDismiss={request.clearError} />
      <PagedTable caption="Webhooks" what="webhooks" columns={columns} paged={paged} rowKey={(w) => w.id} empty="No webhooks yet." />
      {open === undefined ? null : <DeliveryLog webhook={open} onClose={() => setOpen(undefined)} />}
      <ConfirmDialog open={deleting !== undefined} title="Delete this webhook?" onConfirm={() => deleting && remove(deleting)} onCancel={() => setDeleting(undefined)}>
        <p>Deliveries to {deleting?.url} stop, and its delivery log and signing secret are deleted.</p>
      </ConfirmDialog>
    </section>
  );
}
