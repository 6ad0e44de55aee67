import { createServer as createTcpServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { afterEach } from 'vitest';
import type { WebhookRequest } from '../../../../shared/webhooks/deliveries/sender.ts';
import { parseAllowedCidrs } from '../../../../shared/net/ssrf.ts';
import type { LookupAll } from '../../../../shared/net/ssrf.ts';
import { startHttpsReceiver } from '../../../support/https-receiver.ts';
import type { HttpsReceiver, ReceiverBehaviour } from '../../../support/https-receiver.ts';

/** Shared by the sender tests: loopback receivers closed after each test, and a request with a signed-looking body. */

export const LOOPBACK = parseAllowedCidrs('127.0.0.0/8');
export const BODY = JSON.stringify({ id: 'evt_01J', type: 'service.secret.create', data: { key: 'DB_PASSWORD', note: 'ü' } });
export const SIGNATURE = 't=1700000000,v1=5ecre7deadbeef';
export const HEADERS = {
  'Content-Type': 'application/json',
  'Service-Signature': SIGNATURE,
  'Service-Event-Id': 'evt_01J',
  'Service-Delivery-Attempt': '1',
};

const cleanups: (() => Promise<void>)[] = [];

/** Registers the after-each teardown; call once at the top of a test file. */
export function closeServersAfterEach(): void {
  afterEach(async () => {
    await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
  });
}

/** An HTTPS receiver on 127.0.0.1, closed after the test. */
export async function receiver(behaviour: ReceiverBehaviour = {}): Promise<HttpsReceiver> {
  const started = await startHttpsReceiver(behaviour);
  cleanups.push(started.close);
  return started;
}

/** A delivery request to `url` with loopback allowed. */
export function request(url: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest {
  return { url, body: BODY, headers: HEADERS, allow: LOOPBACK, ...overrides };
}

/** A resolver that always answers `addresses`. */
export function resolvesTo(...addresses: string[]): LookupAll {
  return async () => addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
}

/** A port on 127.0.0.1 that nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP server that answers plain HTTP where TLS is expected; closed after the test. */
export async function plainTcpServer(): Promise<Server> {
  const sockets = new Set<Socket>();
  const server = createTcpServer((socket) => {
    sockets.add(socket);
    socket.end('HTTP/1.1 200 OK\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // The client's close is never read from a paused socket, so close() would wait for ever without this.
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise((resolve) => server.close(() => resolve()));
  });
  return server;
}
