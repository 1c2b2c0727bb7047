import { useState } from 'react';
import type { LoreClient, Webhook, WebhookDelivery } from '@lore/client';
import { useLore } from '../../app/lore-context';
import { ErrorBanner } from '../../ui/ErrorBanner';
import { SelectField } from '../../ui/fields';
import { PagedTable, type Column } from '../../ui/PagedTable';
import { cursorPage, usePaged, type Page } from '../../ui/paging';
import { anyOf } from '../shared/options';
import { useAction } from '../../ui/action';

const PAGE_SIZE = 20;
type StatusFilter = '' | 'pending' | 'delivered' | 'failed';
const STATUSES = anyOf(['pending', 'delivered', 'failed'] as const);

async function deliveryPage(lore: LoreClient, webhookId: string, status: StatusFilter, cursor: string | null): Promise<Page<WebhookDelivery>> {
  const page = await lore.webhooks.listDeliveries(webhookId, { limit: PAGE_SIZE, ...(status === '' ? {} : { status }), ...(cursor === null ? {} : { cursor }) });
  return cursorPage(page.deliveries, page.next_cursor, page.has_more);
}

/** The last attempt of a delivery in a line: when, what the endpoint answered, how long, why it failed. */
function lastAttempt(delivery: WebhookDelivery): string {
  const last = delivery.attempts.at(-1);
  if (last === undefined) return '–';
  const answer = last.status_code === null ? 'no answer' : `HTTP ${last.status_code}`;
  return `${new Date(last.at).toLocaleString()} · ${answer} · ${last.duration_ms} ms${last.error ? ` · ${last.error}` : ''}`;
}

/** The delivery log of one webhook, newest first: each delivery's attempts, and sending one again. */
export function DeliveryLog({ webhook, onClose }: { webhook: Webhook; onClose: () => void }) {
  const { lore } = useLore();
  const [status, setStatus] = useState<StatusFilter>('');
  const paged = usePaged((cursor) => deliveryPage(lore, webhook.id, status, cursor), `${webhook.id}/${status}`);
  const request = useAction();
  const redeliver = (delivery: WebhookDelivery) =>
    void request.run(async () => {
      const sent = await lore.webhooks.redeliver(webhook.id, delivery.id);
      paged.update((items) => items.map((item) => (item.id === sent.id ? sent : item)));
    });

  const columns: readonly Column<WebhookDelivery>[] = [
    { header: 'Event', cell: (d) => <>{d.event_type}<div className="muted small"><code>{d.event_id}</code></div></> },
    { header: 'Status', cell: (d) => <span className={`status ${d.status === 'delivered' ? 'completed' : d.status}`}>{d.status}</span> },
    { header: 'Attempts', cell: (d) => d.attempt_count },
    { header: 'Last attempt', cell: (d) => <>{lastAttempt(d)}{d.next_attempt_at ? <div className="muted small">next attempt {new Date(d.next_attempt_at).toLocaleString()}</div> : null}</> },
    {
      header: 'Actions',
      cell: (d) => (
        <button type="button" disabled={request.busy} onClick={() => redeliver(d)} aria-label={`Redeliver ${d.event_type} ${d.event_id}`}>
          Redeliver
        </button>
      ),
    },
  ];

  return (
    <section aria-labelledby="deliveries-title" className="card">
      <div className="row">
        <h3 id="deliveries-title">Deliveries to {webhook.url}</h3>
        <button type="button" onClick={paged.reload}>Refresh</button>
        <button type="button" onClick={onClose}>Close deliveries</button>
      </div>
      <div className="row">
        <SelectField label="Delivery status" name="delivery_status" value={status} onChange={setStatus} options={STATUSES} />
      </div>
      <ErrorBanner error={request.error} onDismiss={request.clearError} />
      <PagedTable caption="Deliveries, newest first" what="deliveries" columns={columns} paged={paged} rowKey={(d) => d.id} empty="No deliveries yet." />
    </section>
  );
}
