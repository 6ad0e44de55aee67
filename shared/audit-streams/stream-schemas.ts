import * as z from 'zod/mini';
import { id, nullableTimestamp, timestamp } from '../platform/http/answer-schemas.ts';
import { once } from '../platform/http/once.ts';
import { maxUnits, minUnits } from '../platform/http/schemas.ts';
import { AUDIT_STREAM_STATUSES, DATADOG_SITES, RESERVED_HEADERS } from './stream-records.ts';

/**
 * What the audit streams routes accept and answer (decisions.md v1.4, "Audit streams and tamper evidence"): each
 * type's fields with its platform's rules, so a stream that could never deliver is refused when it is made, naming
 * the field and the rule. The answers are built through these schemas: no credential is among their fields.
 */

/** At most this many headers an https stream sends with each batch. */
export const MAX_STREAM_HEADERS = 10;
/** The longest url (as a webhook endpoint's). */
export const MAX_STREAM_URL = 2048;
/** The longest header value, Splunk token or other credential a stream keeps. */
export const MAX_STREAM_CREDENTIAL = 1024;

export { RESERVED_HEADERS } from './stream-records.ts';

// RFC 9110's token characters: what an HTTP header name may be made of.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// Printable ASCII and spaces: no CR or LF can split a header in two.
const HEADER_VALUE = /^[\u0020-\u007e]+$/;

/** https only (VALIDATION_ERROR `url: must use https`, as a webhook's); the SSRF guard checks its host in the service. */
export const streamUrlSchema = once(() =>
  z.string().check(
    minUnits(1),
    maxUnits(MAX_STREAM_URL),
    z.refine((raw) => URL.parse(raw)?.protocol === 'https:', { error: 'must use https' }),
  ),
);

const headerValueSchema = once(() =>
  z.string().check(minUnits(1), maxUnits(MAX_STREAM_CREDENTIAL), z.regex(HEADER_VALUE, 'must be printable ASCII (no line breaks)')),
);

/** Header names to values: at most 10, none a delivery sets, none twice in another case. */
export const streamHeadersSchema = once(() =>
  // Names are checked by a refinement rather than the record's key schema, so a refusal names the rule (a key
  // schema's failure reads "Invalid key in record").
  z.record(z.string(), headerValueSchema()).check(
    z.refine((headers) => Object.keys(headers).every((name) => name.length <= 64 && HEADER_NAME.test(name)), {
      error: "must be named as HTTP headers are: up to 64 letters, digits and !#$%&'*+.^_`|~-",
    }),
    z.refine((headers) => Object.keys(headers).length <= MAX_STREAM_HEADERS, { error: `must have at most ${MAX_STREAM_HEADERS} headers` }),
    z.refine((headers) => !Object.keys(headers).some((name) => (RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase())), {
      error: `must not set ${RESERVED_HEADERS.join(', ')} (each delivery sets them)`,
    }),
    z.refine((headers) => new Set(Object.keys(headers).map((name) => name.toLowerCase())).size === Object.keys(headers).length, {
      error: 'must not name a header twice (names are compared without case)',
    }),
  ),
);

/** A Splunk HEC token (a GUID in Splunk Enterprise; Splunk Cloud's may differ): printable, no spaces. */
export const splunkTokenSchema = once(() =>
  z.string().check(minUnits(1), maxUnits(MAX_STREAM_CREDENTIAL), z.regex(/^[\u0021-\u007e]+$/, 'must be printable ASCII without spaces')),
);

/** A Datadog API key: 32 hexadecimal characters, as Datadog issues them. */
export const datadogApiKeySchema = once(() =>
  z.string().check(z.regex(/^[0-9a-fA-F]{32}$/, 'must be a Datadog API key (32 hexadecimal characters)')),
);

export const datadogSiteSchema = once(() => z.enum(DATADOG_SITES, { error: `must be one of ${DATADOG_SITES.join(', ')}` }));

/** A new stream: one of the three types, each with the fields it needs and no other. */
export const streamInputSchema = once(() =>
  z.discriminatedUnion('type', [
    z.strictObject({ type: z.literal('https'), url: streamUrlSchema(), headers: z.optional(streamHeadersSchema()) }),
    z.strictObject({ type: z.literal('splunk-hec'), url: streamUrlSchema(), token: splunkTokenSchema() }),
    z.strictObject({ type: z.literal('datadog'), site: datadogSiteSchema(), apiKey: datadogApiKeySchema() }),
  ]),
);

/**
 * A PATCH: the fields to change (the type never changes; the service refuses a field the stream's type has not).
 * `headers` replaces every header (null removes them all); `status` disables or enables the stream again.
 */
export const streamPatchSchema = once(() =>
  z
    .strictObject({
      url: z.optional(streamUrlSchema()),
      headers: z.optional(z.nullable(streamHeadersSchema())),
      token: z.optional(splunkTokenSchema()),
      site: z.optional(datadogSiteSchema()),
      apiKey: z.optional(datadogApiKeySchema()),
      status: z.optional(z.enum(AUDIT_STREAM_STATUSES)),
    })
    .check(
      z.refine((patch) => Object.values(patch).some((value) => value !== undefined), {
        error: 'must change at least one of url, headers, token, site, apiKey, status',
      }),
    ),
);

export type StreamInput = z.infer<ReturnType<typeof streamInputSchema>>;
export type StreamPatch = z.infer<ReturnType<typeof streamPatchSchema>>;

/** Why the last delivery failed: the receiver's status (null when none answered), a short reason, when. */
const deliveryError = () => z.object({ statusCode: z.nullable(z.int()), reason: z.string(), at: timestamp() });

/** Every type's fields: the contract's, then the delivery's read-only health (null until it happens). */
const common = () => ({
  id: id('as'),
  status: z.enum(AUDIT_STREAM_STATUSES),
  createdAt: timestamp(),
  failingSince: nullableTimestamp(),
  lastDeliveredAt: nullableTimestamp(),
  lastError: z.nullable(deliveryError()),
});

/** A stream as answered: its destination and status, never a credential (header names only). */
export const auditStreamAnswer = once(() =>
  z.discriminatedUnion('type', [
    z.object({ type: z.literal('https'), url: z.string(), headers: z.array(z.string()), secretHint: z.string(), ...common() }),
    z.object({ type: z.literal('splunk-hec'), url: z.string(), ...common() }),
    z.object({ type: z.literal('datadog'), site: z.enum(DATADOG_SITES), ...common() }),
  ]),
);

/** The create answer: for an https stream, its signing secret, shown this once. */
export const auditStreamCreated = once(() =>
  z.discriminatedUnion('type', [
    z.object({
      type: z.literal('https'),
      url: z.string(),
      headers: z.array(z.string()),
      secretHint: z.string(),
      secret: z.string(),
      ...common(),
    }),
    z.object({ type: z.literal('splunk-hec'), url: z.string(), ...common() }),
    z.object({ type: z.literal('datadog'), site: z.enum(DATADOG_SITES), ...common() }),
  ]),
);

/** A test's answer: whether the receiver took the entry (a 2xx), its status (null when none answered), why not. */
export const auditStreamTested = once(() =>
  z.object({ delivered: z.boolean(), statusCode: z.nullable(z.int()), error: z.nullable(z.string()) }),
);
