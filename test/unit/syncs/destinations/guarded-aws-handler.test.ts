import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowedCidrs } from '../../../../shared/net/ssrf.ts';
import { guardedAgents, guardedLookup } from '../../../../shared/syncs/destinations/guarded-aws-handler.ts';

/** A GET through an agent: its status, or the error's code and message. */
function get(url: string, agent: http.Agent): Promise<{ status?: number; code?: string; message?: string }> {
  return new Promise((resolve) => {
    const request = http.get(url, { agent }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code ?? '', message: error.message }));
  });
}

const fixed =
  (...addresses: string[]) =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe("the AWS clients' SSRF guard (guarded-aws-handler.ts)", () => {
  let server: http.Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = http.createServer((_req, res) => res.end('ok'));
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses an IP literal the guard blocks before any socket, and lets it through when allowed', async () => {
    const before = connections;
    const blocked = await get(`http://127.0.0.1:${port}/`, guardedAgents(parseAllowedCidrs('')).httpAgent);
    expect(blocked).toEqual({ code: 'ESSRFBLOCKED', message: 'blocked: 127.0.0.1 (loopback)' });
    expect(connections).toBe(before);
    expect(await get(`http://127.0.0.1:${port}/`, guardedAgents(parseAllowedCidrs('127.0.0.0/8')).httpAgent)).toEqual({ status: 200 });
  });

  it('refuses a name when any address it resolves to is blocked', async () => {
    const agents = guardedAgents(parseAllowedCidrs(''), fixed('93.184.216.34', '169.254.169.254'));
    expect(await get(`http://ssm.eu-west-1.amazonaws.com:${port}/`, agents.httpAgent)).toEqual({
      code: 'ESSRFBLOCKED',
      message: 'blocked: ssm.eu-west-1.amazonaws.com resolves to 169.254.169.254 (link-local (169.254.0.0/16, cloud metadata))',
    });
    const allowed = guardedAgents(parseAllowedCidrs('127.0.0.0/8'), fixed('127.0.0.1'));
    expect(await get(`http://moto.test:${port}/`, allowed.httpAgent)).toEqual({ status: 200 });
  });

  it('answers the shape Node asks for: one address, or all of them', async () => {
    const lookup = guardedLookup(parseAllowedCidrs(''), fixed('93.184.216.34', '2606:2800:220:1::1'));
    const one = await new Promise((resolve) => lookup('example.com', {}, (error, address, family) => resolve({ error, address, family })));
    expect(one).toEqual({ error: null, address: '93.184.216.34', family: 4 });
    const all = await new Promise((resolve) => lookup('example.com', { all: true }, (error, address) => resolve({ error, address })));
    expect(all).toEqual({
      error: null,
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2606:2800:220:1::1', family: 6 },
      ],
    });
  });
});
