import type { AuditEntry } from '../../audit/index.ts';
import { signatureHeader } from '../../webhooks/index.ts';
import { type AuditStreamType, type DatadogSite, RESERVED_HEADERS } from '../stream-records.ts';

/**
 * The HTTP request that delivers one batch of audit entries to a stream (decisions.md v1.4, "Audit streams and tamper
 * evidence"): for `https` our own signed JSON lines, for Splunk and Datadog each one's documented intake. Pure: the
 * caller unseals the credentials, picks the time and sends the request through the SSRF guard. No message this
 * module makes ever holds a credential or a url (a url may carry one in its query).
 */

/** What every stream's records name as their origin: Splunk's `source`, Datadog's `ddsource` and `service`. */
export const STREAM_SOURCE = 'secrets-service';

/**
 * Splunk's own pre-trained sourcetype for JSON events: Splunk extracts the event's fields with no setup on the
 * customer's side, which a sourcetype of ours would need (`source` already tells our records apart).
 */
export const SPLUNK_SOURCETYPE = '_json';

/** The path of Splunk HEC's JSON event endpoint, which takes several events in one request. */
const SPLUNK_EVENT_PATH = '/services/collector/event';

/** A stream's destination with its credentials in the clear, as the caller unsealed them for one delivery. */
export type OpenedStream =
  | { type: 'https'; url: string; secret: string; headers: Record<string, string> }
  | { type: 'splunk-hec'; url: string; token: string }
  | { type: 'datadog'; site: DatadogSite; apiKey: string };

/** One POST of a batch. */
export interface StreamRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * How a type's body is made of its entries: one piece per entry, joined by `separator` between `open` and `close`.
 * stream-batches.ts measures a batch from these same pieces, so its size is the body's to the byte.
 */
export interface BodyShape {
  piece: (entry: AuditEntry) => string;
  open: string;
  separator: string;
  close: string;
}

/**
 * An entry exactly as `GET /api/v1/audit` answers it: the fields of the route's schema (shared/audit/audit-answers.ts)
 * in its order, picked rather than parsed, so the worker carries no zod and spends no parse on each of 500 entries
 * (stream-formats.test.ts compares the two).
 */
export function answeredEntry(entry: AuditEntry): Record<string, unknown> {
  const { id, action, actorSub, target, metadata, createdAt } = entry;
  return { id, action, actorSub, target, metadata, createdAt };
}

/** Splunk's `time`: epoch seconds with the entry's milliseconds as the fraction. */
function splunkTime(entry: AuditEntry): number {
  return Date.parse(entry.createdAt) / 1000;
}

/** Each type's body shape: https NDJSON, Splunk's concatenated HEC events, Datadog's array of logs. */
export const BODY_SHAPES: Record<AuditStreamType, BodyShape> = {
  // NDJSON: one entry a line, every line ended (a trailing newline), as `GET /api/v1/audit` answers each entry.
  https: { piece: (entry) => JSON.stringify(answeredEntry(entry)), open: '', separator: '\n', close: '\n' },
  // HEC takes several event objects one after the other, with nothing between them (no array).
  'splunk-hec': {
    piece: (entry) =>
      JSON.stringify({ time: splunkTime(entry), source: STREAM_SOURCE, sourcetype: SPLUNK_SOURCETYPE, event: answeredEntry(entry) }),
    open: '',
    separator: '',
    close: '',
  },
  // Datadog's logs intake takes a JSON array; a `message` holding JSON is parsed into the log's attributes.
  datadog: {
    // `timestamp` (epoch ms, one of Datadog's reserved date attributes) dates the log when the entry was made, not when
    // it arrived: a retried batch keeps its time.
    piece: (entry) =>
      JSON.stringify({
        ddsource: STREAM_SOURCE,
        service: STREAM_SOURCE,
        timestamp: Date.parse(entry.createdAt),
        message: JSON.stringify(answeredEntry(entry)),
      }),
    open: '[',
    separator: ',',
    close: ']',
  },
};

/** The body a stream of `type` sends for `entries` (at least one: an empty batch is never sent). */
export function streamBody(type: AuditStreamType, entries: readonly AuditEntry[]): string {
  if (entries.length === 0) throw new Error('a stream batch needs at least one audit entry');
  const shape = BODY_SHAPES[type];
  return shape.open + entries.map(shape.piece).join(shape.separator) + shape.close;
}

/**
 * The request that delivers `entries` to `stream` at `now` (epoch ms; an https batch's signature carries it in
 * seconds). Each type's own url, headers and body; see each builder.
 */
export function streamRequest(stream: OpenedStream, entries: readonly AuditEntry[], now: number): StreamRequest {
  const body = streamBody(stream.type, entries);
  if (stream.type === 'https') return httpsRequest(stream, body, now);
  if (stream.type === 'splunk-hec') {
    return {
      url: splunkEventUrl(stream.url),
      headers: { 'Content-Type': 'application/json', Authorization: `Splunk ${stream.token}` },
      body,
    };
  }
  return {
    url: `https://http-intake.logs.${stream.site}/api/v2/logs`,
    headers: { 'Content-Type': 'application/json', 'DD-API-KEY': stream.apiKey },
    body,
  };
}

/**
 * An https batch: signed as a webhook delivery (`Service-Signature` keyed with the whole `whsec_` secret), with the
 * stream's own headers. A stream header named as one a delivery sets (in any case) is left out, so none is sent
 * twice and ours always hold; the schemas refuse such names already, this keeps a record from before that rule safe.
 */
function httpsRequest(stream: Extract<OpenedStream, { type: 'https' }>, body: string, now: number): StreamRequest {
  const own = Object.entries(stream.headers).filter(([name]) => !(RESERVED_HEADERS as readonly string[]).includes(name.toLowerCase()));
  const headers = {
    ...Object.fromEntries(own),
    'Content-Type': 'application/x-ndjson',
    'Service-Signature': signatureHeader([stream.secret], body, Math.floor(now / 1000)),
  };
  return { url: stream.url, headers, body };
}

/**
 * The HEC url a batch is posted to. A url whose path ends in `/services/collector/event` is used as given; one that
 * ends in `/services/collector` (HEC's base endpoint, which customers often copy) gets `/event`; any other (a bare
 * `https://host:8088`) gets `/services/collector/event` after its path. Trailing slashes are dropped first; a query
 * (a `channel`) is kept.
 */
export function splunkEventUrl(given: string): string {
  const url = URL.parse(given);
  // The message never repeats the url: its query may hold a credential.
  if (!url) throw new Error('a Splunk HEC stream needs an absolute url');
  let path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(SPLUNK_EVENT_PATH)) path += path.endsWith('/services/collector') ? '/event' : SPLUNK_EVENT_PATH;
  if (path === url.pathname) return given;
  url.pathname = path;
  return url.href;
}
