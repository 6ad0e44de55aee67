import type { LookupAddress, LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { blockedReason, systemLookup } from '../../net/ssrf.ts';
import type { AllowedCidrs, LookupAll } from '../../net/ssrf.ts';

/**
 * The webhooks' SSRF guard for the AWS SDK clients of syncs: their sockets only reach addresses `blockedReason`
 * passes. The SDK resolves and connects inside Node's agents, so the guard sits there: a `lookup` that checks every
 * address a name resolves to (one blocked answer blocks, as for webhooks), and, since Node skips `lookup` for an IP
 * literal (a local endpoint such as 127.0.0.1), a check of the literal before the socket is made.
 */

/** The error of a refused connection: its message names the host and the guard's reason, as a webhook's does. */
export class BlockedAddressError extends Error {
  override readonly name = 'BlockedAddressError';
  readonly code = 'ESSRFBLOCKED';
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `lookup` for Node's agents that refuses a name when any address it resolves to is blocked. */
export function guardedLookup(allow: AllowedCidrs, lookup: LookupAll = systemLookup) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    lookup(hostname).then(
      (entries) => {
        const refusal = entries.map((entry) => refusalOf(hostname, entry.address, allow)).find(Boolean);
        const first = entries[0];
        if (refusal !== undefined) return callback(refusal, '');
        if (first === undefined) return callback(Object.assign(new Error(`DNS: ENODATA ${hostname}`), { code: 'ENODATA' }), '');
        if (options.all)
          return callback(
            null,
            entries.map(({ address, family }) => ({ address, family })),
          );
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };
}

function refusalOf(host: string, address: string, allow: AllowedCidrs): BlockedAddressError | undefined {
  const reason = blockedReason(address, allow);
  if (reason === undefined) return undefined;
  const subject = host === address ? host : `${host} resolves to ${address}`;
  return new BlockedAddressError(`blocked: ${subject} (${reason})`);
}

type Connect = (options: http.ClientRequestArgs, callback?: (error: Error | null, stream: Duplex) => void) => Duplex | null | undefined;

/** Wraps an agent's `createConnection` so that a blocked IP literal fails the request without a socket. */
function checkLiterals<T extends http.Agent>(agent: T, allow: AllowedCidrs): T {
  const connect: Connect = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const host = (options.host ?? '').replace(/^\[(.*)\]$/, '$1');
    const refusal = isIP(host) === 0 ? undefined : refusalOf(host, host, allow);
    if (refusal === undefined) return connect(options, callback);
    // The agent passes the error to the request (Agent#createConnection's documented callback).
    callback?.(refusal, undefined as unknown as Duplex);
    return undefined;
  };
  return agent;
}

/** The agents of a guarded handler (exported for the tests, which drive them with plain requests). */
export function guardedAgents(allow: AllowedCidrs, lookup?: LookupAll) {
  const options = { keepAlive: true, lookup: guardedLookup(allow, lookup) };
  return {
    httpAgent: checkLiterals(new http.Agent(options), allow),
    httpsAgent: checkLiterals(new https.Agent(options), allow),
  };
}

/** The request handler every AWS client of a sync is made with (aws-credentials.ts). */
export function guardedAwsHandler(allow: AllowedCidrs, lookup?: LookupAll): NodeHttpHandler {
  return new NodeHttpHandler({ ...guardedAgents(allow, lookup), connectionTimeout: 5_000, requestTimeout: 15_000 });
}
