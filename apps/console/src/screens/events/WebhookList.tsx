import { useEffect, useState } from 'react';
import type { LoreClient, Webhook } from '@lore/client';
import { ConfirmDialog, ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { offsetPage, usePages, type Page } from '../shared/use-pages';
import { DeliveryLog } from './DeliveryLog';

const PAGE_SIZE = 20;

async function webhookPage(lore: LoreClient, token: string | undefined): Promise<Page<Webhook>> {
  const skip = Number(token ?? 0);
  const page = await lore.webhooks.list({ skip, limit: PAGE_SIZE });
  return offsetPage(page.data, skip, page.has_more);
}

/** The workspace's webhooks: enable or disable one, see its delivery log, delete it. */
export function WebhookList({ version }: { version: number }) {
  const lore = useLore();
  const pages = usePages('webhooks', (token) => webhookPage(lore, token));
  const [open, setOpen] = useState<Webhook | undefined>();
  const [deleting, setDeleting] = useState<Webhook | undefined>();
  const [error, setError] = useState<unknown>();
  const { reload } = pages;
  useEffect(() => {
    if (version > 0) reload();
  }, [version, reload]);

  const act = async (action: () => Promise<unknown>) => {
    try {
      await action();
      setError(undefined);
      reload();
    } catch (failure) {
      setError(failure);
    }
  };
  const toggle = (webhook: Webhook) => act(() => lore.webhooks.update(webhook.id, { status: webhook.status === 'active' ? 'disabled' : 'active' }));
  const remove = (webhook: Webhook) => act(async () => {
    setDeleting(undefined);
    if (open?.id === webhook.id) setOpen(undefined);
    await lore.webhooks.delete(webhook.id);
  });

  return (
    <section aria-labelledby="webhooks-title" className="panel">
      <h2 id="webhooks-title">Webhooks</h2>
      <ErrorBanner error={pages.error ?? error} />
      <table className="data-table" aria-busy={pages.loading}>
        <caption className="visually-hidden">Webhooks</caption>
        <thead>
          <tr>
            <th scope="col">Endpoint</th>
            <th scope="col">Events</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((webhook) => (
            <tr key={webhook.id}>
              <td>
                <code>{webhook.url}</code>
                {webhook.description && <div className="muted">{webhook.description}</div>}
              </td>
              <td>{webhook.event_types.join(', ') || 'every event'}</td>
              <td>
                {webhook.status}
                {webhook.disabled_reason && <div className="muted">{webhook.disabled_reason}</div>}
              </td>
              <td className="actions">
                <button type="button" onClick={() => setOpen(webhook)} aria-pressed={open?.id === webhook.id}>Deliveries</button>
                <button type="button" onClick={() => void toggle(webhook)}>{webhook.status === 'active' ? 'Disable' : 'Enable'}</button>
                <button type="button" className="danger" onClick={() => setDeleting(webhook)}>Delete</button>
              </td>
            </tr>
          ))}
          {!pages.loading && pages.items.length === 0 && (
            <tr>
              <td colSpan={4}>No webhooks.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pages={pages} label="Webhooks" />
      {open && <DeliveryLog webhook={open} onClose={() => setOpen(undefined)} />}
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete this webhook?"
        message={`Deliveries to ${deleting?.url ?? ''} stop, and its delivery log and signing secret are deleted.`}
        confirmLabel="Delete"
        onConfirm={() => deleting && void remove(deleting)}
        onCancel={() => setDeleting(undefined)}
      />
    </section>
  );
}
