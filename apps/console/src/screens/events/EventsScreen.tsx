import { useState } from 'react';
import '../shared/screens.css';
import type { ReplyOf } from '@lore/client';
import { ShownOnce } from '../shared/ShownOnce';
import { LiveTail } from './LiveTail';
import { CreateWebhookForm } from './CreateWebhookForm';
import { WebhookList } from './WebhookList';
import { AuditVerifyPanel } from './AuditVerifyPanel';

/** Events and webhooks: a live tail of the workspace's event stream, and the webhooks that receive it. */
export default function EventsScreen() {
  const [created, setCreated] = useState<ReplyOf<'create_webhook'> | undefined>();
  const [listVersion, setListVersion] = useState(0);
  return (
    <section aria-labelledby="events-title">
      <div className="page-head">
        <h1 id="events-title">Events and webhooks</h1>
      </div>
      <LiveTail />
      {created && (
        <ShownOnce title="Webhook created" value={created.secret} copyLabel="Copy signing secret" onDone={() => setCreated(undefined)}>
          <p>
            Deliveries to <code>{created.url}</code> are signed with this secret (Standard Webhooks). Copy it now: it is shown only once.
          </p>
        </ShownOnce>
      )}
      <div>
        <WebhookList version={listVersion} />
        <CreateWebhookForm onCreated={(webhook) => { setCreated(webhook); setListVersion((n) => n + 1); }} />
      </div>
      <AuditVerifyPanel />
    </section>
  );
}
