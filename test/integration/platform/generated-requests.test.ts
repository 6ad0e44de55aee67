import { Agent, request, type IncomingHttpHeaders } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { checkAnswer } from '../../support/contract.ts';
import { bodyBytes, requestPlan, units, type Fixtures, type JsonSchema, type RequestPlan } from '../../support/openapi-requests.ts';
import { deliveriesOf, registerEndpoint, startReceiver, waitFor } from '../../support/webhooks.ts';
import type { HttpsReceiver } from '../../support/https-receiver.ts';

/**
 * A property-based test of the whole API over HTTP, against the local stack: requests generated from the served
 * OpenAPI document (valid and mutated parameters and bodies, hostile bodies, four kinds of caller), each of which
 * must answer below 500, in the `{data, error, meta}` envelope with a `req_` id, with a status and body the document
 * gives that route, and, for hostile bodies and strings past their documented length (in UTF-16 code units), the
 * refusal decisions.md names. Fixed seed and run count: the same requests on every run. FUZZ_SEED, FUZZ_RUNS and
 * FUZZ_PATH (a failure's replay path) explore or replay.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_601);
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

type Answer = { path: string; status: number; headers: IncomingHttpHeaders; text: string };

describe('the API under generated requests', () => {
  let tokens: Record<'apiKey' | 'machine', string>;
  let fixtures: Fixtures;
  let receiver: HttpsReceiver;
  const agent = new Agent({ keepAlive: true });

  beforeAll(async () => {
    const ws = await newWorkspace();
    const token = ws.apiKey;
    const project = (await call('POST', '/api/v1/projects', { token, body: { name: 'fuzz' } })).body.data;
    const env = (await call('POST', `/api/v1/projects/${project.id}/environments`, { token, body: { name: 'prod' } })).body.data;
    const secret = (await call('PUT', `/api/v1/environments/${env.id}/secrets`, { token, body: { key: 'FUZZ_KEY', value: 'v' } })).body
      .data;
    const accessKey = (await call('POST', '/api/v1/access-keys', { token, body: { name: 'fuzz' } })).body.data;
    receiver = await startReceiver({ status: 200 });
    const endpoint = await registerEndpoint(token, `https://localhost:${receiver.port}/fuzz`, ['service.secret.create']);
    await call('PUT', `/api/v1/environments/${env.id}/secrets`, { token, body: { key: 'FUZZ_DELIVERED', value: 'v' } });
    const [delivery] = await waitFor(async () => {
      const list = await deliveriesOf(token, endpoint.id);
      return list.length > 0 ? list : undefined;
    });
    const changeRequest = (
      await call('POST', '/api/v1/change-requests', {
        token,
        body: { environmentId: env.id, title: 'fuzz', changes: [{ key: 'FUZZ_KEY', value: 'proposed' }] },
      })
    ).body.data;
    const sync = (
      await call('POST', '/api/v1/syncs', {
        token,
        body: { environmentId: env.id, destination: { type: 'aws-ssm', region: 'us-east-1', pathPrefix: '/fuzz/' } },
      })
    ).body.data;
    const auditStream = (
      await call('POST', '/api/v1/audit-streams', {
        token,
        body: { type: 'datadog', site: 'datadoghq.com', apiKey: '0123456789abcdef0123456789abcdef' },
      })
    ).body.data;
    tokens = { apiKey: token, machine: accessKey.token };
    fixtures = makeFixtures({
      changeRequestId: changeRequest.id,
      syncId: sync.id,
      auditStreamId: auditStream.id,
      project,
      env,
      secret,
      accessKeyId: accessKey.id,
      endpointId: endpoint.id,
      deliveryId: delivery!.id,
      receiverPort: receiver.port,
    });
  });

  afterAll(async () => {
    agent.destroy();
    await receiver?.close();
  });

  it(`answers ${RUNS} generated requests (seed ${SEED}) without a 5xx, in the envelope, as the document says`, async () => {
    // Act
    const details = await fc.check(
      fc.asyncProperty(requestPlan(fixtures), async (plan) => assessAnswer(plan, await send(plan, tokens, agent))),
      {
        seed: SEED,
        numRuns: RUNS,
        interruptAfterTimeLimit: 150_000,
        markInterruptAsFailure: true,
        ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
      },
    );
    // Assess: a failure names the seed, the replay path and the request, long strings cut short
    if (details.failed) throw new Error(failureReport(details));
    expect(details.numRuns).toBe(RUNS);
  }, 180_000);
});

type Made = { project: { id: string; slug: string }; env: { id: string; slug: string }; secret: { id: string } };

/** Path values and field generators from the objects made for the run: most requests reach a real object. */
function makeFixtures(
  made: Made & {
    accessKeyId: string;
    endpointId: string;
    deliveryId: string;
    changeRequestId: string;
    syncId: string;
    auditStreamId: string;
    receiverPort: number;
  },
): Fixtures {
  const byParam: Record<string, { value: string; prefix?: string }> = {
    projectId: { value: made.project.id, prefix: 'proj' },
    envId: { value: made.env.id, prefix: 'env' },
    secretId: { value: made.secret.id, prefix: 'sec' },
    projectSlug: { value: made.project.slug },
    envSlug: { value: made.env.slug },
    // A change request's proposed key (POST /api/v1/change-requests/{id}/changes/{key}/reveal).
    key: { value: 'FUZZ_KEY' },
  };
  const byIdRoute: [string, { value: string; prefix: string }][] = [
    ['/api/v1/access-keys/', { value: made.accessKeyId, prefix: 'ak' }],
    ['/api/v1/webhooks/', { value: made.endpointId, prefix: 'we' }],
    ['/api/v1/webhook-deliveries/', { value: made.deliveryId, prefix: 'whd' }],
    ['/api/v1/change-requests/', { value: made.changeRequestId, prefix: 'cr' }],
    ['/api/v1/syncs/', { value: made.syncId, prefix: 'sync' }],
    ['/api/v1/audit-streams/', { value: made.auditStreamId, prefix: 'as' }],
  ];
  const path = `${made.project.slug}/${made.env.slug}/FUZZ_KEY`;
  return {
    pathValue: (template, name) => byParam[name] ?? byIdRoute.find(([start]) => template.startsWith(start))![1],
    // Valid values: the broken ones come from the schema (extreme strings, other types).
    fields: {
      // Only loopback and unparseable urls: a generated host name would wait on DNS.
      url: fc.constantFrom(
        `https://localhost:${made.receiverPort}/fuzz`,
        'https://localhost:1/fuzz',
        'http://localhost/x',
        'https://user:pw@localhost/x',
        'not a url',
        units(2048),
      ),
      path: fc.oneof(fc.constant(path), fc.constant(`${path}/deeper`), fc.string({ unit: 'binary', minLength: 3, maxLength: 40 })),
      key: fc.oneof(fc.constantFrom('FUZZ_KEY', 'NEW_KEY', 'a/b.c-d_e'), fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/)),
      limit: fc.integer({ min: 1, max: 200 }),
      version: fc.integer({ min: 1, max: 3 }),
    },
  };
}

/** Sends a plan with node:http (fetch refuses a body on GET and DELETE), on one keep-alive agent. */
function send(plan: RequestPlan, tokens: Record<'apiKey' | 'machine', string>, agent: Agent): Promise<Answer> {
  const path = plan.operation.template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(plan.params[name]!));
  const url = new URL(`${path}${plan.query.length ? `?${new URLSearchParams(plan.query)}` : ''}`, inject('stack').baseUrl);
  const authorization = {
    apiKey: `Bearer ${tokens.apiKey}`,
    machine: `Bearer ${tokens.machine}`,
    garbage: 'Bearer sk_live_not-a-token',
    none: undefined,
  }[plan.auth];
  const body = bodyBytes(plan.body);
  const headers = {
    ...plan.headers,
    ...(authorization ? { authorization } : {}),
    ...(body ? { 'content-length': String(body.length) } : {}),
  };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, { method: plan.operation.method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          path: url.pathname,
          status: response.statusCode!,
          headers: response.headers,
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

/** Throws, saying what is wrong, unless the answer is one the contract allows for this request. */
function assessAnswer(plan: RequestPlan, answer: Answer): void {
  const { method, template } = plan.operation;
  if (answer.status >= 500) throw new Error(`answered ${answer.status}: ${answer.text.slice(0, 300)}`);
  const body = JSON.parse(answer.text) as {
    data?: unknown;
    error?: { code: string; message: string } | null;
    meta?: { requestId?: string };
  };
  // The route must document the status, and the body must match its schema (error codes included).
  checkAnswer(method, answer.path, answer.status, body);
  if (template === '/api/v1/openapi.json') return;
  expect(Object.keys(body).sort()).toEqual(['data', 'error', 'meta']);
  expect(body.meta?.requestId).toMatch(REQUEST_ID);
  expect(answer.headers['x-request-id']).toMatch(REQUEST_ID);
  // A replayed answer is the first answer byte for byte, the first request's id included; the header is this one's.
  if (answer.headers['idempotent-replayed'] !== 'true') expect(answer.headers['x-request-id']).toBe(body.meta?.requestId);
  const refusal = expectedRefusal(plan);
  if (refusal) expect({ status: answer.status, ...body.error }).toMatchObject(refusal);
}

/**
 * The refusal decisions.md gives a request whatever its route, if any: no credential, or a hostile body. A route that
 * asks no bearer token (the login) answers by its body and its own checks, which the document's statuses cover.
 */
function expectedRefusal(plan: RequestPlan): { status: number; code: string; message?: string } | undefined {
  if (plan.operation.open) return undefined;
  if (plan.auth === 'none' || plan.auth === 'garbage') return { status: 401, code: 'AUTH_REQUIRED' };
  if (plan.auth !== 'apiKey') return undefined;
  if (plan.body.kind === 'oversized') return { status: 413, code: 'PAYLOAD_TOO_LARGE' };
  if (!plan.operation.body) return undefined;
  if (plan.body.kind === 'deep') return { status: 400, code: 'VALIDATION_ERROR', message: 'body: nested deeper than 64 levels' };
  if (plan.body.kind === 'invalidUtf8') return { status: 400, code: 'VALIDATION_ERROR', message: 'body: must be valid UTF-8' };
  if (plan.body.kind === 'malformed') return { status: 400, code: 'VALIDATION_ERROR', message: 'body: must be valid JSON' };
  if (breaksLength(plan)) return { status: 400, code: 'VALIDATION_ERROR' };
  return undefined;
}

/**
 * Whether a string of the query or of the body (its fields, and the items of its array fields) is outside its
 * documented length counted as decisions.md counts, in UTF-16 code units (JSON Schema itself counts code points).
 */
function breaksLength(plan: RequestPlan): boolean {
  const outside = (value: unknown, schema: JsonSchema | undefined): boolean => {
    const string = schema?.anyOf?.find((option) => option.type === 'string') ?? schema;
    if (Array.isArray(value)) return value.some((item) => outside(item, schema?.items));
    return (
      typeof value === 'string' &&
      string?.type === 'string' &&
      (value.length > (string.maxLength ?? Infinity) || value.length < (string.minLength ?? 0))
    );
  };
  const documented = (name: string) => plan.operation.parameters.find((p) => p.in === 'query' && p.name === name)?.schema;
  const inQuery = plan.query.some(([name, value]) => outside(value, documented(name)));
  const fields =
    plan.body.kind === 'json' && typeof plan.body.value === 'object' && plan.body.value !== null ? Object.entries(plan.body.value) : [];
  return (
    inQuery ||
    (plan.operation.body !== undefined && fields.some(([name, value]) => outside(value, plan.operation.body?.properties?.[name])))
  );
}

/** The seed, replay path, number of runs, error and counterexample of a failed run; long strings cut short. */
function failureReport(details: fc.RunDetails<[RequestPlan]>): string {
  const short = (_key: string, value: unknown) =>
    typeof value === 'string' && value.length > 120 ? `${value.slice(0, 40)}… (${value.length} UTF-16 units)` : value;
  const plan = details.counterexample?.[0];
  const request = plan && { route: `${plan.operation.method} ${plan.operation.template}`, ...plan, operation: undefined };
  return [
    `Property failed after ${details.numRuns} runs and ${details.numShrinks} shrinks (seed ${details.seed}; replay with FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath})`,
    `Error: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance ?? (details.interrupted ? 'interrupted by the time limit' : ''))}`,
    `Counterexample: ${JSON.stringify(request, short, 2)}`,
  ].join('\n');
}
