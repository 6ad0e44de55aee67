import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import type { Schemas } from '../ui/admin-ui.tsx';
import { ErrorBox, Time, useAction } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';

type Delivery = Schemas['Delivery'];

/** The later of two records of one delivery (a list page and a poll may see it at different moments). */
function later(a: Delivery, b: Delivery | undefined): Delivery {
  return b && b.updatedAt >= a.updatedAt ? b : a;
}

/**
 * Follows the pending deliveries in view until they finish: each is read again (GET /webhook-deliveries/{id}) after
 * 1 s, then less and less often (up to 30 s), since a retry may be minutes away. Answers the freshest record of each.
 */
function useFollowed(listed: Delivery[], onSettled: () => void): { rows: Delivery[]; update: (delivery: Delivery) => void } {
  const { client } = useSession();
  const [fresh, setFresh] = useState<Record<string, Delivery>>({});
  const [tick, setTick] = useState(0);
  const polls = useRef(0);
  const rows = listed.map((delivery) => later(delivery, fresh[delivery.id]));
  const pending = rows.filter((delivery) => delivery.status === 'pending').map((delivery) => delivery.id);
  const key = pending.join(',');
  useEffect(() => void (polls.current = 0), [key]);
  useEffect(() => {
    if (pending.length === 0) return;
    const delay = Math.min(1000 * 1.5 ** polls.current, 30_000);
    const timer = setTimeout(async () => {
      polls.current += 1;
      // A read that fails (a network blip) is simply tried again at the next poll.
      const read = await Promise.all(
        pending.map((id) =>
          client.api
            .GET('/api/v1/webhook-deliveries/{id}', { params: { path: { id } } })
            .then(unwrap)
            .catch(() => null),
        ),
      );
      const found = read.filter((delivery): delivery is Delivery => delivery !== null);
      setFresh((known) => ({ ...known, ...Object.fromEntries(found.map((delivery) => [delivery.id, delivery])) }));
      if (found.some((delivery) => delivery.status !== 'pending')) onSettled();
      setTick((t) => t + 1);
    }, delay);
    return () => clearTimeout(timer);
  }, [key, tick]);
  return { rows, update: (delivery) => setFresh((known) => ({ ...known, [delivery.id]: delivery })) };
}

/**
 * One endpoint's deliveries, newest first, a page at a time: each row expandable to its attempt log, and `Retry` on
 * the finished ones. `added` are deliveries this page made (test events) that the list has not shown yet;
 * `generation` reloads the list (after a recovery); `onSettled` hears of a followed delivery that finished.
 */
export function Deliveries({
  endpointId,
  added,
  generation,
  onSettled,
}: {
  endpointId: string;
  added: Delivery[];
  generation: number;
  onSettled: () => void;
}) {
  const { client } = useSession();
  const paged = usePaged(
    (cursor) =>
      client.api.GET('/api/v1/webhooks/{id}/deliveries', { params: { path: { id: endpointId }, query: pageQuery(cursor, '25') } }),
    [endpointId, generation],
  );
  const [open, setOpen] = useState<Set<string>>(new Set());
  const retry = useAction();
  const listed = new Map<string, Delivery>();
  for (const delivery of [...paged.items, ...added]) listed.set(delivery.id, later(delivery, listed.get(delivery.id)));
  const newestFirst = [...listed.values()].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));
  const { rows, update } = useFollowed(newestFirst, onSettled);
  const toggle = (id: string) =>
    setOpen((shown) => (shown.has(id) ? new Set([...shown].filter((x) => x !== id)) : new Set([...shown, id])));
  const again = async (delivery: Delivery) => {
    const queued = await retry.run(async () =>
      unwrap(await client.api.POST('/api/v1/webhook-deliveries/{id}/retry', { params: { path: { id: delivery.id } } })),
    );
    if (queued) update(queued);
  };
  return (
    <div class="deliveries">
      <p>
        <button type="button" onClick={paged.reload} disabled={paged.loading}>
          Refresh deliveries
        </button>
      </p>
      <ErrorBox error={retry.error} />
      <PagedTable
        paged={paged}
        what="deliveries"
        empty="No deliveries yet. Send a test event to see one."
        head={['Event', 'Status', 'Attempts', 'Last code', 'Last error', 'Created', 'Next retry']}
        actions
        tableClass="deliveries-table"
        items={rows}
        failure={(error) => <ErrorBox error={error} />}
        row={(delivery) => (
          <Fragment key={delivery.id}>
            <tr class={`delivery ${delivery.status}`}>
              <td>
                <code>{delivery.eventType}</code>
                <div class="muted">{delivery.id}</div>
              </td>
              <td class={`status-${delivery.status}`}>{delivery.status}</td>
              <td>{delivery.attempts}</td>
              <td>{delivery.statusCode ?? '—'}</td>
              <td>{delivery.lastError ?? ''}</td>
              <td>
                <Time at={delivery.createdAt} />
              </td>
              <td>
                <Time at={delivery.nextRetryAt} />
              </td>
              <td class="row-actions">
                <button
                  type="button"
                  aria-expanded={open.has(delivery.id)}
                  aria-controls={`attempts-${delivery.id}`}
                  aria-label={`Attempts of ${delivery.id}`}
                  onClick={() => toggle(delivery.id)}
                >
                  Attempts
                </button>
                {delivery.status !== 'pending' && (
                  <button type="button" aria-label={`Retry ${delivery.id}`} onClick={() => void again(delivery)} disabled={retry.busy}>
                    Retry
                  </button>
                )}
              </td>
            </tr>
            {open.has(delivery.id) && (
              <tr id={`attempts-${delivery.id}`} class="attempt-log">
                <td colSpan={8}>
                  <AttemptLog delivery={delivery} />
                </td>
              </tr>
            )}
          </Fragment>
        )}
      />
    </div>
  );
}

/** Every attempt of a delivery: when, the answer's status, how long it took, and what went wrong. */
function AttemptLog({ delivery }: { delivery: Delivery }) {
  if (delivery.attemptLog.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <table class="attempts" aria-label={`Attempt log of ${delivery.id}`}>
      <thead>
        <tr>
          <th>Attempt</th>
          <th>At</th>
          <th>Status code</th>
          <th>Duration</th>
          <th>Error</th>
        </tr>
      </thead>
      <tbody>
        {delivery.attemptLog.map((attempt) => (
          <tr key={attempt.attempt}>
            <td>{attempt.attempt}</td>
            <td>
              <Time at={attempt.at} />
            </td>
            <td>{attempt.statusCode ?? '—'}</td>
            <td>{attempt.durationMs} ms</td>
            <td>{attempt.error ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
