import { useState } from 'react';
import type { LoreClient, Webhook, WebhookDelivery } from '@lore/client';
import { ErrorBanner, useLore } from '../../ui';
import { Pager } from '../shared/Pager';
import { usePages, type Page } from '../shared/use-pages';

const PAGE_SIZE = 20;
type StatusFilter = '' | 'pending' | 'delivered' | 'failed';

async function deliveryPage(lore: LoreClient, webhookId: string, status: StatusFilter, cursor: string | undefined): Promise<Page<WebhookDelivery>> {
  const page = await lore.webhooks.listDeliveries(webhookId, { limit: PAGE_SIZE, ...(status === '' ? {} : { status }), ...(cursor === undefined ? {} : { cursor }) });
  return { items: page.deliveries, next: page.has_more && page.next_cursor ? page.next_cursor : undefined };
}

/** The delivery log of one webhook, newest first: each delivery's attempts, and sending one again. */
export function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const lore = useLore();
  const [status, setStatus] = useState<StatusFilter>('');
  const pages = usePages(`${webhook.id}/${status}`, (cursor) => deliveryPage(lore, webhook.id, status, cursor));
  const [error, setError] = useState<unknown>();
  const [sending, setSending] = useState<string | undefined>();

  const redeliver = async (delivery: WebhookDelivery) => {
    setSending(delivery.id);
    try {
      await lore.webhooks.redeliver(webhook.id, delivery.id);
      setError(undefined);
      pages.reload();
    } catch (failure) {
      setError(failure);
    } finally {
      setSending(undefined);
    }
  };

  return (
    <section aria-labelledby="deliveries-title" className="panel">
      <header className="panel-header">
        <h3 id="deliveries-title">Deliveries to {webhook.url}</h3>
        <button type="button" onClick={pages.reload}>Refresh</button>
        <button type="button" onClick={onClose}>Close deliveries</button>
      </header>
      <label className="inline-filter">
        Status
        <select value={status} onChange={(e) => setStatus(e.target.value as StatusFilter)}>
          <option value="">any</option>
          <option value="pending">pending</option>
          <option value="delivered">delivered</option>
          <option value="failed">failed</option>
        </select>
      </label>
      <ErrorBanner error={pages.error ?? error} />
      <table className="data-table" aria-busy={pages.loading}>
        <caption className="visually-hidden">Deliveries</caption>
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last attempt</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {pages.items.map((delivery) => {
            const last = delivery.attempts[delivery.attempts.length - 1];
            return (
              <tr key={delivery.id} data-testid="delivery">
                <td>
                  {delivery.event_type}
                  <div className="muted"><code>{delivery.event_id}</code></div>
                </td>
                <td>{delivery.status}</td>
                <td>{delivery.attempt_count}</td>
                <td>
                  {last === undefined
                    ? '–'
                    : `${new Date(last.at).toLocaleString()} · ${last.status_code === null ? 'no answer' : `HTTP ${last.status_code}`} · ${last.duration_ms} ms${last.error ? ` · ${last.error}` : ''}`}
                  {delivery.next_attempt_at && <div className="muted">next attempt {new Date(delivery.next_attempt_at).toLocaleString()}</div>}
                </td>
                <td className="actions">
                  <button type="button" disabled={sending === delivery.id} onClick={() => void redeliver(delivery)} aria-label={`Redeliver ${delivery.event_type} ${delivery.event_id}`}>
                    Redeliver
                  </button>
                </td>
              </tr>
            );
          })}
          {!pages.loading && pages.items.length === 0 && (
            <tr>
              <td colSpan={5}>No deliveries.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pages={pages} label="Deliveries" />
    </section>
  );
}
