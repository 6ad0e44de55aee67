import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { trustCertificate } from './tls.ts';

/**
 * A small HTTPS webhook receiver for tests: listens on 127.0.0.1 with a self-signed certificate that this process
 * trusts, records every request and answers as told.
 *
 *   const receiver = await startHttpsReceiver({ status: 500 });
 *   await sendWebhook({ url: `${receiver.origin}/hook`, ... });
 *   expect(receiver.requests[0]?.body).toBe(body);
 *   await receiver.close();
 */

/** How the receiver answers one request. Without `hang` or `stream` it answers once after `delayMs`. */
export type ReceiverBehaviour = {
  /** Default 200. */
  status?: number;
  /** Extra response headers, e.g. `{ Location: 'https://…' }` with a 3xx status. */
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer (the connection stays open until the client or `close()` ends it). */
  hang?: boolean;
  /** Send the headers, then `chunkBytes` of body every `everyMs` until the client leaves: a trickle or a flood. */
  stream?: { chunkBytes: number; everyMs: number };
};

/** One request as the receiver saw it. */
export type ReceivedRequest = {
  method: string;
  /** Path and query. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body, as UTF-8. */
  body: string;
  /** The TLS SNI name the client sent, if any. */
  servername: string | undefined;
};

/** A running receiver. */
export type HttpsReceiver = {
  /** `https://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** Every complete request, in arrival order. */
  requests: ReceivedRequest[];
  /** TCP connections accepted so far (also those that never sent a request). */
  connections: () => number;
  /** TCP connections accepted and not yet closed. */
  openConnections: () => number;
  /** Changes how later requests are answered; a function can answer each request differently. */
  respond: (behaviour: ReceiverBehaviour | ((request: ReceivedRequest) => ReceiverBehaviour)) => void;
  /** Drops every open connection and stops listening. */
  close: () => Promise<void>;
};

/** Names the shared certificate covers; `rebind.test` lets tests resolve a name to 127.0.0.1 and still verify TLS. */
export const RECEIVER_NAMES = ['localhost', 'rebind.test', 'receiver.test'];

let sharedCertificate: { cert: string; key: string } | undefined;

/**
 * Starts a receiver on 127.0.0.1 with a free port; `behaviour` is the initial answer (default: 200, empty body).
 * `certificate` is one another process trusts (the local stack's, through NODE_EXTRA_CA_CERTS); by default a
 * certificate this process makes and trusts.
 */
export async function startHttpsReceiver(
  behaviour: ReceiverBehaviour = {},
  certificate?: { cert: string; key: string },
): Promise<HttpsReceiver> {
  const tlsOptions = certificate ?? (sharedCertificate ??= trustedCertificate(RECEIVER_NAMES));
  const requests: ReceivedRequest[] = [];
  let current: (request: ReceivedRequest) => ReceiverBehaviour = () => behaviour;
  let connections = 0;
  let open = 0;
  const server = createServer(tlsOptions, (req, res) => {
    void collect(req).then((request) => {
      requests.push(request);
      answer(current(request), res);
    });
  });
  server.on('connection', (socket: import('node:net').Socket) => {
    connections += 1;
    open += 1;
    socket.once('close', () => (open -= 1));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    requests,
    connections: () => connections,
    openConnections: () => open,
    respond: (next) => {
      current = typeof next === 'function' ? next : () => next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function collect(req: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: req.headers,
    body: Buffer.concat(chunks).toString('utf8'),
    servername: (req.socket as TLSSocket).servername || undefined,
  };
}

function answer(behaviour: ReceiverBehaviour, res: ServerResponse): void {
  if (behaviour.hang) return;
  const send = () => {
    res.writeHead(behaviour.status ?? 200, behaviour.headers);
    if (behaviour.stream) return streamForever(res, behaviour.stream);
    res.end(behaviour.body ?? '');
  };
  if (behaviour.delayMs) setTimeout(send, behaviour.delayMs);
  else send();
}

function streamForever(res: ServerResponse, stream: { chunkBytes: number; everyMs: number }): void {
  const chunk = Buffer.alloc(stream.chunkBytes, 'x');
  const timer = setInterval(() => {
    if (!res.destroyed) res.write(chunk);
  }, stream.everyMs);
  res.on('close', () => clearInterval(timer));
}

/**
 * Like `selfSignedCertificate` in tls.ts but for chosen DNS names, and with a unique subject so that several test
 * certificates in the trust store never shadow one another.
 */
export function trustedCertificate(dnsNames: readonly string[]): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'receiver-cert-'));
  const altNames = [...dnsNames.map((name) => `DNS:${name}`), 'IP:127.0.0.1', 'IP:::1'].join(',');
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=webhook-receiver-${randomUUID()}`,
        '-addext',
        `subjectAltName=${altNames}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const certificate = { cert: readFileSync(join(dir, 'cert.pem'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
    trustCertificate(certificate.cert);
    return certificate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
