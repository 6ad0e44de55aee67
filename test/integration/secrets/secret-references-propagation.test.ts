import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';

/**
 * Changes propagate (decisions.md v1.4, "Secret references"): a change of a secret's current value fires
 * `service.secret.rotate` with `data.via` for every secret whose value depends on it, directly or not, through the
 * local stack's stream fan-out to a subscribed endpoint; a cycle ends; `GET /secrets/{id}` answers `references` and
 * `referencedBy` from the reverse index.
 */

type Ws = Awaited<ReturnType<typeof newWorkspace>>;
type Event = { id: string; type: string; occurredAt: string; data: { secretId: string; via?: string; version: number } };
let ws: Ws;
let envId: string;
let receiver: HttpsReceiver;

const put = async (key: string, value: string) => {
  const answer = await call('PUT', `/api/v1/environments/${envId}/secrets`, { token: ws.apiKey, body: { key, value } });
  expect(answer.status).toBe(200);
  return answer.body.data.id as string;
};
/** The events received, each once (delivery is at least once: a slow answer may be delivered again). */
const events = () => [
  ...new Map(receiver.requests.map((request) => JSON.parse(request.body) as Event).map((event) => [event.id, event])).values(),
];
/** The rotate events that name `via`, once every secret of `expected` has one. */
const viaEvents = (via: string, expected: string[]) =>
  waitFor(
    async () => {
      const found = events().filter((event) => event.type === 'service.secret.rotate' && event.data.via === via);
      return expected.every((id) => found.some((event) => event.data.secretId === id)) && found;
    },
    30_000,
    `rotate events via ${via}`,
  );

beforeAll(async () => {
  ws = await newWorkspace();
  envId = (await newEnvironment(ws.apiKey, { project: 'app', environment: 'prod' })).environment.id;
  receiver = await startReceiver();
  await registerEndpoint(ws.apiKey, `${receiver.origin}/hook`, ['service.secret.rotate']);
});
afterAll(async () => {
  await receiver.close();
});

describe('secret references: changes propagate', () => {
  it('a write to a target fires service.secret.rotate for each secret of the chain A → B → C, with via', async () => {
    // Prepare
    const c = await put('C', 'c-1');
    const b = await put('B', 'b:${C}');
    const a = await put('A', 'a:${B}');
    // Act
    await put('C', 'c-2');
    // Assess: C's own rotate event (no via) dates the change; B and A are told of it once each, via C. (The fan-out
    // reads the index when it runs: C's creation may also tell them, under its own date.)
    const own = await waitFor(
      async () => {
        const rotates = events().filter((event) => event.data.secretId === c && event.type === 'service.secret.rotate');
        return rotates.length > 0 && rotates;
      },
      30_000,
      "C's own rotate event",
    );
    expect(own.map((event) => event.data.via)).toEqual([undefined]);
    await viaEvents(c, [b, a]);
    const found = await waitFor(
      async () => {
        const ofChange = events().filter((event) => event.occurredAt === own[0]!.occurredAt && event.data.via === c);
        return ofChange.length >= 2 && ofChange;
      },
      30_000,
      "the events of C's change",
    );
    expect(found.map((event) => event.data.secretId).sort()).toEqual([a, b].sort());
    expect(found.find((event) => event.data.secretId === b)!.data.version).toBe(1);
  });

  it('a cycle ends: each secret of X → Y → X is told once per change', async () => {
    // Prepare
    const x = await put('X', 'x-1');
    const y = await put('Y', 'y:${X}');
    await put('X', 'x:${Y}');
    // Act
    await put('Y', 'y2:${X}');
    // Assess: Y's own rotate event dates the change; X depends on Y and is told once (via Y), Y never of itself.
    // (The fan-out reads the index when it runs: Y's creation may also tell X, under its own date.)
    const own = await waitFor(
      async () => events().find((event) => event.type === 'service.secret.rotate' && event.data.secretId === y && !event.data.via),
      30_000,
      "Y's own rotate event",
    );
    const ofChange = await waitFor(
      async () => {
        const found = events().filter((event) => event.occurredAt === own.occurredAt && event.data.via === y);
        return found.length > 0 && found;
      },
      30_000,
      "the events of Y's change",
    );
    expect(ofChange.map((event) => event.data.secretId)).toEqual([x]);
  });

  it('GET /secrets/{id} answers references (paths) and referencedBy (ids)', async () => {
    // Prepare
    const t = await put('T', 't');
    const r = await put('R', 'r:${T}');
    // Act
    const target = await call('GET', `/api/v1/secrets/${t}`, { token: ws.apiKey });
    const referrer = await call('GET', `/api/v1/secrets/${r}`, { token: ws.apiKey });
    // Assess
    expect(target.body.data).toMatchObject({ references: [], referencedBy: [r] });
    expect(referrer.body.data).toMatchObject({ references: ['app/prod/T'], referencedBy: [] });
    // A rewrite without the reference removes the edge.
    await put('R', 'plain');
    expect((await call('GET', `/api/v1/secrets/${t}`, { token: ws.apiKey })).body.data.referencedBy).toEqual([]);
  });
});
