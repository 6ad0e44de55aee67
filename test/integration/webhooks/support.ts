import { call, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver } from '../../support/webhooks.ts';

/*
 * What more than one of the webhooks integration tests sets up: a workspace with an environment to write secrets in,
 * an endpoint with its receiver, a machine token, the audit entries of an action.
 */

/** A new workspace with one environment, and a function that writes a secret there (each write is an event). */
export async function workspaceWithEnvironment() {
  const ws = await newWorkspace();
  const { environment } = await newEnvironment(ws.apiKey, { project: 'life', environment: 'prod' });
  const write = (key: string) =>
    call('PUT', `/api/v1/environments/${environment.id}/secrets`, { token: ws.apiKey, body: { key, value: 'v' } });
  return { ws, write };
}

/** A workspace, a receiver (kept in `receivers`, for the file to close) and an endpoint subscribed only to `service.secret.delete`. */
export async function endpointWithReceiver(receivers: HttpsReceiver[], behaviour: Parameters<typeof startReceiver>[0] = {}) {
  const ws = await newWorkspace();
  const receiver = await startReceiver(behaviour);
  receivers.push(receiver);
  const endpoint = await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, ['service.secret.delete']);
  return { ws, receiver, endpoint };
}

/** An access key's token (a machine credential) in the workspace. */
export async function machineToken(apiKey: string): Promise<string> {
  const created = await call('POST', '/api/v1/access-keys', { token: apiKey, body: { name: 'ci' } });
  return created.body.data.token as string;
}

/** The workspace's latest audit entries of `action`. */
export const auditOf = async (apiKey: string, action: string) =>
  (await call('GET', `/api/v1/audit?action=${action}&limit=10`, { token: apiKey })).body.data as {
    id: string;
    action: string;
    target: string;
    metadata: Record<string, unknown>;
  }[];
