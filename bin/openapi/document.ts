import { readFileSync } from 'node:fs';
import type { $ZodType } from 'zod/v4/core';
import { type RouteDefinition, type RouteErrorCode } from '../../shared/platform/http/route.ts';
import { refusesMissingBody } from '../../shared/platform/http/validation.ts';
import { pageMeta } from '../../shared/platform/http/answer-schemas.ts';
import { environmentAnswer, projectAnswer } from '../../shared/workspaces/project-answers.ts';
import {
  environmentValueAnswer,
  revealByPathResult,
  revealResult,
  secretListItem,
  secretSearchItem,
  secretWriteResult,
  versionAnswer,
} from '../../shared/secrets/secret-answers.ts';
import { auditEntryAnswer } from '../../shared/audit/audit-answers.ts';
import { deliveryAnswer, eventTypeAnswer, webhookEndpointAnswer, webhookEndpointCreated } from '../../shared/webhooks/index.ts';
import { accessKeyAnswer, accessKeyCreated } from '../../shared/access/access-key-wiring.ts';
import { allRouteDefinitions } from './routes.ts';
import { jsonSchema, webhooksSection } from './webhooks.ts';

/**
 * The OpenAPI 3.1 document of the API, generated from the route definitions and their zod schemas (never written
 * by hand): `npm run openapi` writes it to docs/openapi.json, `GET /api/v1/openapi.json` serves that file, and the
 * integration tests check every answer against it.
 */

type Code =
  | RouteErrorCode
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'VALIDATION_ERROR'
  | 'AUTH_REQUIRED'
  | 'WORKSPACE_NOT_ALLOWLISTED'
  | 'FORBIDDEN'
  | 'PAYLOAD_TOO_LARGE'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE';

/** HTTP status of each error code (decisions.md). */
const STATUS_OF: Record<Code, number> = {
  VALIDATION_ERROR: 400,
  AUTH_REQUIRED: 401,
  WORKSPACE_NOT_ALLOWLISTED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  LIMIT_EXCEEDED: 409,
  ALREADY_QUEUED: 409,
  ENDPOINT_DISABLED: 409,
  REVIEW_REQUIRED: 409,
  PAYLOAD_TOO_LARGE: 413,
  IDEMPOTENCY_KEY_REUSED: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

/** Answers API Gateway (or the local front) gives itself, with its own `{message}` body. */
const GATEWAY_STATUSES = new Set([413, 429, 500, 503]);

/** The answer schemas that get a name under components.schemas (and a $ref wherever they are used). */
const NAMED: [string, $ZodType][] = [
  ['Project', projectAnswer()],
  ['Environment', environmentAnswer()],
  ['SecretListItem', secretListItem()],
  ['SecretSearchItem', secretSearchItem()],
  ['SecretWriteResult', secretWriteResult()],
  ['RevealResult', revealResult()],
  ['RevealByPathResult', revealByPathResult()],
  ['AuditEntry', auditEntryAnswer()],
  ['AccessKey', accessKeyAnswer()],
  ['AccessKeyCreated', accessKeyCreated()],
  ['WebhookEndpoint', webhookEndpointAnswer()],
  ['WebhookEndpointCreated', webhookEndpointCreated()],
  ['EventType', eventTypeAnswer()],
  ['Delivery', deliveryAnswer()],
  ['SecretVersion', versionAnswer()],
  ['EnvironmentValue', environmentValueAnswer()],
  ['PageMeta', pageMeta()],
];

/** The codes a route may answer: its own, and those every route of its kind can. */
function codesOf(route: RouteDefinition): Code[] {
  // A body over 256 KiB is refused on every route, whether or not it takes one.
  // FORBIDDEN on every route: an access key used from outside its allowedCidrs.
  const codes: Code[] = [
    'AUTH_REQUIRED',
    'FORBIDDEN',
    'WORKSPACE_NOT_ALLOWLISTED',
    'PAYLOAD_TOO_LARGE',
    'INTERNAL_ERROR',
    'SERVICE_UNAVAILABLE',
    ...(route.errors ?? []),
  ];
  if (route.params || route.query || route.body || route.headers) codes.push('VALIDATION_ERROR');
  if (route.idempotent) codes.push('IDEMPOTENCY_KEY_REUSED', 'CONFLICT', 'VALIDATION_ERROR');
  return [...new Set(codes)];
}

/** A schema, as a $ref when it is one of the named ones (or an array of one). */
function schemaRef(schema: $ZodType): Record<string, unknown> {
  const named = NAMED.find(([, candidate]) => candidate === schema);
  if (named) return { $ref: `#/components/schemas/${named[0]}` };
  const def = (schema as { _zod: { def: { type: string; element?: $ZodType } } })._zod.def;
  if (def.type === 'array' && def.element) return { type: 'array', items: schemaRef(def.element) };
  return jsonSchema(schema as never);
}

function parameters(route: RouteDefinition): Record<string, unknown>[] {
  const from = (schema: $ZodType | undefined, where: 'path' | 'query' | 'header') => {
    if (!schema) return [];
    const json = jsonSchema(schema as never, 'input') as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
    return Object.entries(json.properties ?? {}).map(([name, property]) => ({
      name: where === 'header' ? name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => `${dash}${c.toUpperCase()}`) : name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      schema: property,
    }));
  };
  return [
    ...from(route.params, 'path'),
    ...from(route.query, 'query'),
    ...from(route.headers, 'header'),
    ...(route.idempotent ? [IDEMPOTENCY_KEY] : []),
  ];
}

function responses(route: RouteDefinition): Record<string, unknown> {
  const meta = route.paged ? '#/components/schemas/MetaWithPage' : '#/components/schemas/Meta';
  const success = {
    description: route.summary,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          required: ['data', 'error', 'meta'],
          properties: { data: schemaRef(route.response), error: { type: 'null' }, meta: { $ref: meta } },
          additionalProperties: false,
        },
      },
    },
  };
  const byStatus = new Map<number, Code[]>();
  for (const code of codesOf(route)) byStatus.set(STATUS_OF[code], [...(byStatus.get(STATUS_OF[code]) ?? []), code]);
  const errors = [...byStatus].map(([status, codes]) => {
    const envelope = {
      allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }],
      properties: { error: { properties: { code: { enum: codes } } } },
    };
    const schema = GATEWAY_STATUSES.has(status) ? { oneOf: [envelope, { $ref: '#/components/schemas/GatewayError' }] } : envelope;
    return [String(status), { description: codes.join(', '), content: { 'application/json': { schema } } }];
  });
  return { [String(route.status ?? 200)]: success, ...Object.fromEntries(errors) };
}

function operation(route: RouteDefinition): Record<string, unknown> {
  const kinds = {
    admin: 'API keys and people with the admin role (others get FORBIDDEN).',
    workspace: 'Every credential, within its permissions: what it may not read is NOT_FOUND, what it may read but not do is FORBIDDEN.',
    public: 'No credential: the body proves who is calling.',
  }[route.access];
  return {
    operationId: route.operationId,
    ...(route.access === 'public' && { security: [] }),
    summary: route.summary,
    description: [route.description, route.reveals ? REVEALS_NOTE : undefined, kinds].filter(Boolean).join('\n\n'),
    parameters: parameters(route),
    ...(route.body
      ? {
          requestBody: {
            required: refusesMissingBody(route.body),
            content: { 'application/json': { schema: jsonSchema(route.body as never, 'input') } },
          },
        }
      : {}),
    responses: responses(route),
  };
}

/** The whole document. */
export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [routeKey, route] of Object.entries(allRouteDefinitions())) {
    const [method, path] = routeKey.split(' ') as [string, string];
    (paths[path] ??= {})[method.toLowerCase()] = operation(route);
  }
  paths['/api/v1/openapi.json'] = { get: OPENAPI_OPERATION };
  return {
    openapi: '3.1.0',
    info: INFO,
    servers: [
      {
        url: '{baseUrl}',
        description: "The API's base URL, without /api/v1",
        variables: {
          baseUrl: { default: 'http://127.0.0.1:3000', description: "The local stack; a deployed stage's is its `ApiUrl` output" },
        },
      },
    ],
    security: [{ bearer: [] }],
    paths,
    webhooks: webhooksSection(),
    components: { securitySchemes: { bearer: BEARER }, schemas: componentSchemas() },
  };
}

function componentSchemas(): Record<string, unknown> {
  const named = Object.fromEntries(NAMED.map(([name, schema]) => [name, jsonSchema(schema as never)]));
  const meta = {
    type: 'object',
    required: ['requestId', 'timestamp'],
    properties: { requestId: { type: 'string', pattern: '^req_' }, timestamp: { type: 'string', format: 'date-time' } },
  };
  return {
    ...named,
    Meta: { ...meta, additionalProperties: false },
    MetaWithPage: {
      ...meta,
      required: [...meta.required, 'page'],
      properties: { ...meta.properties, page: { $ref: '#/components/schemas/PageMeta' } },
      additionalProperties: false,
    },
    ErrorEnvelope: {
      type: 'object',
      required: ['data', 'error', 'meta'],
      properties: {
        data: { type: 'null' },
        error: {
          type: 'object',
          required: ['code', 'message'],
          properties: {
            code: { enum: Object.keys(STATUS_OF) },
            message: { type: 'string' },
            details: { type: 'array', items: { type: 'object' } }, // a reveal's references, a merge's stale keys
          },
          additionalProperties: false,
        },
        meta: { $ref: '#/components/schemas/Meta' },
      },
      additionalProperties: false,
    },
    GatewayError: {
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' } },
      additionalProperties: false,
      description: "API Gateway's own answer (throttling, a function that timed out or failed).",
    },
  };
}

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const INFO = {
  title: 'Secrets service API',
  version: VERSION,
  description: [
    'Projects and environments hold versioned, envelope-encrypted secrets; every reveal is audited before the value leaves;',
    'systems learn of changes through signed webhooks. Every answer is the envelope `{data, error, meta}` with',
    '`meta.requestId` (also the `X-Request-Id` header); errors carry a code and a message naming the field and rule.',
    'Lists take `limit` (1 to 200) and an opaque `cursor`, and answer `meta.page`.',
  ].join(' '),
};

const BEARER = {
  type: 'http',
  scheme: 'bearer',
  description: [
    'Three kinds of credential, all as `Authorization: Bearer <token>`:',
    "**workspace API keys** (`sk_live_…`, made by the operator's admin CLI),",
    '**machine tokens** (`st_…`, from POST /api/v1/access-keys; no access keys, webhooks, deliveries, audit or creating projects and environments),',
    'and **user access tokens** (JWTs of the configured identity provider, RS256/ES256, the workspace in a claim).',
    'Issued tokens carry a checksum: a token that fails it is refused before any lookup.',
  ].join(' '),
};

const IDEMPOTENCY_KEY = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: [
    '1 to 255 printable ASCII characters, scoped to the calling credential and kept 24 hours. A repeat with the same key',
    'and the same request answers the first answer (status and body) again with `Idempotent-Replayed: true` and changes',
    'nothing; the same key with a different request is 422 IDEMPOTENCY_KEY_REUSED; a repeat while the first still runs',
    'is 409 CONFLICT with `Retry-After: 1` (retry with the same key to get its answer; no other 409 carries Retry-After).',
    'A request refused by validation or failing with 5xx records nothing.',
  ].join(' '),
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' },
};

const REVEALS_NOTE = 'An `Idempotency-Key` header is refused with VALIDATION_ERROR: a value is never replayed from storage.';

const OPENAPI_OPERATION = {
  operationId: 'getOpenApiDocument',
  summary: 'This document',
  description:
    'The one route without authentication. It answers the document itself, not wrapped in the envelope, and carries no workspace data.',
  security: [],
  responses: { '200': { description: 'The OpenAPI 3.1 document', content: { 'application/json': { schema: { type: 'object' } } } } },
};
