import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { AdminError, type Schemas } from '../ui/admin-ui.tsx';
import { Loading, Time } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { Deliveries } from './admin-deliveries.tsx';
import { RecoverForm, RotateForm, Stats, TestEventButton } from './admin-webhook-ops.tsx';
import { EndpointStatus } from './webhooks.tsx';
import { useTitle } from '../ui/title.ts';

/**
 * `/console/webhooks/{endpointId}`: one endpoint (`GET /api/v1/webhooks/{id}`; another workspace's is NOT_FOUND), its
 * operations (test, recover, rotate), statistics and deliveries.
 */
export function Webhook() {
  const { client } = useSession();
  const endpointId = useRoute().params.endpointId ?? '';
  const endpoint = useLoaded(
    async () => unwrap(await client.api.GET('/api/v1/webhooks/{id}', { params: { path: { id: endpointId } } })),
    [endpointId],
    { keep: true },
  );
  const [added, setAdded] = useState<Schemas['Delivery'][]>([]);
  const [deliveriesGeneration, setDeliveriesGeneration] = useState(0);
  const [statsGeneration, setStatsGeneration] = useState(0);
  const changed = () => (setStatsGeneration((g) => g + 1), endpoint.reload());
  // The API queues a recovery's deliveries in the background: the list is read now and once more a little later.
  const recovered = () => {
    const reload = () => (setDeliveriesGeneration((g) => g + 1), changed());
    reload();
    setTimeout(reload, 3000);
  };
  const data = endpoint.value;
  // The endpoint's host only: its address may carry a query string that is the receiver's secret.
  useTitle('Webhook endpoint', data && new URL(data.url).host);
  return (
    <section class="webhook">
      <p>
        <a href="/console/webhooks">← Webhooks</a>
      </p>
      <h1>Webhook endpoint</h1>
      {endpoint.loading && !data && <Loading what="the endpoint" />}
      <AdminError error={endpoint.error} />
      {data && (
        <>
          <EndpointDetails endpoint={data} />
          <h2>Operations</h2>
          <div class="operations">
            <TestEventButton
              endpointId={data.id}
              onSent={(delivery) => (setAdded((list) => [delivery, ...list]), setStatsGeneration((g) => g + 1))}
            />
            <RecoverForm endpointId={data.id} onRecovered={recovered} />
            <RotateForm endpointId={data.id} onRotated={endpoint.reload} />
          </div>
          <h2>Statistics</h2>
          <Stats endpointId={data.id} generation={statsGeneration} />
          <h2>Deliveries</h2>
          <Deliveries endpointId={data.id} added={added} generation={deliveriesGeneration} onSettled={changed} />
        </>
      )}
    </section>
  );
}

function EndpointDetails({ endpoint }: { endpoint: Schemas['WebhookEndpoint'] }) {
  return (
    <table class="details" aria-label="Endpoint">
      <tbody>
        <tr>
          <th scope="row">URL</th>
          <td>
            <code>{endpoint.url}</code>
          </td>
        </tr>
        {endpoint.description && (
          <tr>
            <th scope="row">Description</th>
            <td>{endpoint.description}</td>
          </tr>
        )}
        <tr>
          <th scope="row">ID</th>
          <td>
            <code>{endpoint.id}</code>
          </td>
        </tr>
        <tr>
          <th scope="row">Events</th>
          <td>
            {endpoint.events.map((type) => (
              <code key={type}>{type}</code>
            ))}
          </td>
        </tr>
        <tr>
          <th scope="row">Status</th>
          <td>
            <EndpointStatus endpoint={endpoint} />
          </td>
        </tr>
        <tr>
          <th scope="row">Failures in a row</th>
          <td>
            {endpoint.consecutiveFailures}
            {endpoint.failingSince && (
              <span class="muted">
                {' '}
                since <Time at={endpoint.failingSince} />
              </span>
            )}
          </td>
        </tr>
        <tr>
          <th scope="row">Signing secret</th>
          <td>
            <code class="secret-hint">{endpoint.secretHint}</code>
            {endpoint.previousSecretExpiresAt && (
              <span class="muted">
                {' '}
                (the previous secret signs too until <Time at={endpoint.previousSecretExpiresAt} />)
              </span>
            )}
          </td>
        </tr>
        <tr>
          <th scope="row">Created</th>
          <td>
            <Time at={endpoint.createdAt} />
          </td>
        </tr>
      </tbody>
    </table>
  );
}
