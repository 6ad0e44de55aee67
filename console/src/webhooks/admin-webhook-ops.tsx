import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { fromUtcInput, OnceSecret, toUtcInput, valueOf, type Schemas } from '../ui/admin-ui.tsx';
import { ConfirmDialog, ErrorBox, Loading, Time, useAction } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';

const HOUR_MS = 3_600_000;

/** `Send test event`: a `service.ping` to this endpoint alone; its delivery goes to `onSent` to be followed. */
export function TestEventButton({ endpointId, onSent }: { endpointId: string; onSent: (delivery: Schemas['Delivery']) => void }) {
  const { client } = useSession();
  const send = useAction();
  const click = async () => {
    const delivery = await send.run(async () =>
      unwrap(await client.api.POST('/api/v1/webhooks/{id}/test', { params: { path: { id: endpointId } } })),
    );
    if (delivery) onSent(delivery);
  };
  return (
    <div class="operation">
      <h3>Test event</h3>
      <p class="muted">
        A signed <code>service.ping</code> to this endpoint alone, logged like any delivery.
      </p>
      <button type="button" onClick={() => void click()} disabled={send.busy}>
        Send test event
      </button>
      <ErrorBox error={send.error} />
    </div>
  );
}

/** Recover: every failed delivery created in a span goes out again; answers how many were queued. */
export function RecoverForm({ endpointId, onRecovered }: { endpointId: string; onRecovered: () => void }) {
  const { client } = useSession();
  const [since, setSince] = useState(() => toUtcInput(new Date(Date.now() - 24 * HOUR_MS)));
  const [until, setUntil] = useState('');
  const [queued, setQueued] = useState<number | null>(null);
  const recover = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setQueued(null);
    const to = fromUtcInput(until);
    const body = { since: fromUtcInput(since) ?? '', ...(to ? { until: to } : {}) };
    const answer = await recover.run(async () =>
      unwrap(await client.api.POST('/api/v1/webhooks/{id}/recover', { params: { path: { id: endpointId } }, body })),
    );
    if (answer) setQueued(answer.queued), onRecovered();
  };
  return (
    <form class="operation" aria-label="Recover failed deliveries" onSubmit={submit}>
      <h3>Recover</h3>
      <p class="muted">Send every failed delivery created in the span again (at most 14 days back).</p>
      <label>
        Since (UTC)
        <input type="datetime-local" value={since} onInput={(e) => setSince(valueOf(e))} required />
      </label>
      <label>
        Until (UTC)
        <input type="datetime-local" value={until} onInput={(e) => setUntil(valueOf(e))} />
      </label>
      <button type="submit" disabled={recover.busy}>
        Recover failed deliveries
      </button>
      {queued !== null && (
        <p role="status" class="ok-text">
          queued {queued}
        </p>
      )}
      <ErrorBox error={recover.error} />
    </form>
  );
}

/** Rotate the signing secret, after a `Confirm`: the new one shown once, the old one signing on for the hours chosen. */
export function RotateForm({ endpointId, onRotated }: { endpointId: string; onRotated: () => void }) {
  const { client } = useSession();
  const [hours, setHours] = useState('24');
  const [asking, setAsking] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const rotate = useAction();
  const confirm = async () => {
    setAsking(false);
    const body = { expireCurrentInHours: Number(hours) };
    const rotated = await rotate.run(async () =>
      unwrap(await client.api.POST('/api/v1/webhooks/{id}/rotate-secret', { params: { path: { id: endpointId } }, body })),
    );
    if (rotated) setSecret(rotated.secret), onRotated();
  };
  const keeps = Number(hours) === 0 ? 'stops signing at once' : `keeps signing for ${hours} hours`;
  return (
    <form class="operation" aria-label="Rotate signing secret" onSubmit={(event) => (event.preventDefault(), setAsking(true))}>
      <h3>Signing secret</h3>
      <p class="muted">A new secret; until the current one expires every attempt is signed with both.</p>
      <label>
        Expire current secret in (hours)
        <input type="number" min={0} max={48} step={1} value={hours} onInput={(e) => setHours(valueOf(e))} required />
      </label>
      <button type="submit" disabled={rotate.busy}>
        Rotate secret
      </button>
      {asking && (
        <ConfirmDialog
          text={`Rotate the signing secret? The current one ${keeps}.`}
          onConfirm={() => void confirm()}
          onCancel={() => setAsking(false)}
        />
      )}
      {secret && <OnceSecret label="New signing secret" value={secret} onDismiss={() => setSecret(null)} />}
      <ErrorBox error={rotate.error} />
    </form>
  );
}

const WINDOWS: Record<string, number> = { '24 hours': 24, '7 days': 7 * 24, '30 days': 30 * 24 };

/** The endpoint's delivery statistics over a window (24 hours, 7 days, 30 days), reloaded with `generation`. */
export function Stats({ endpointId, generation }: { endpointId: string; generation: number }) {
  const { client } = useSession();
  const [span, setSpan] = useState('24 hours');
  const stats = useLoaded(
    async () => {
      const since = new Date(Date.now() - (WINDOWS[span] ?? 24) * HOUR_MS).toISOString();
      return unwrap(await client.api.GET('/api/v1/webhooks/{id}/stats', { params: { path: { id: endpointId }, query: { since } } }));
    },
    [endpointId, span, generation],
    { keep: true },
  );
  const data = stats.value;
  const ms = (value: number | null) => (value === null ? '—' : `${Math.round(value)} ms`);
  const rows: [string, ComponentChildren][] = data
    ? [
        ['Deliveries', data.deliveries],
        ['Succeeded', data.succeeded],
        ['Failed', data.failed],
        ['Pending', data.pending],
        ['Success rate', data.successRate === null ? '—' : `${(data.successRate * 100).toFixed(1)}%`],
        ['p50 duration', ms(data.p50DurationMs)],
        ['p95 duration', ms(data.p95DurationMs)],
        ['Last success', <Time at={data.lastSuccessAt} />],
        ['Last failure', <Time at={data.lastFailureAt} />],
      ]
    : [];
  return (
    <div class="stats">
      <div class="inline">
        <label>
          Window
          <select value={span} onChange={(e) => setSpan(valueOf(e))}>
            {Object.keys(WINDOWS).map((name) => (
              <option key={name}>{name}</option>
            ))}
          </select>
        </label>
        <button type="button" onClick={stats.reload} disabled={stats.loading}>
          Refresh stats
        </button>
      </div>
      {stats.loading && !data && <Loading what="statistics" />}
      <ErrorBox error={stats.error} />
      {data && (
        <>
          <p class="muted">
            Deliveries created since <Time at={data.since} />, by their status now.
          </p>
          <div role="group" aria-label="Delivery statistics">
            <dl class="stats-grid">
              {rows.map(([name, value]) => (
                <div key={name}>
                  <dt>{name}</dt>
                  <dd>{value}</dd>
                </div>
              ))}
            </dl>
          </div>
        </>
      )}
    </div>
  );
}
