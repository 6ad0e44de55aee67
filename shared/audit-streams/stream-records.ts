import type { SealedValue } from '../platform/crypto/envelope.ts';

/**
 * An audit stream as the service keeps it (decisions.md v1.4, "Audit streams and tamper evidence"): where the
 * workspace's audit entries go and whether they go. One item per stream (stream-store.ts); every credential is sealed
 * apart under the service's KMS key and never answered: an https receiver's signing secret and header values, a
 * Splunk HEC token, a Datadog API key.
 */

export const AUDIT_STREAM_TYPES = ['https', 'splunk-hec', 'datadog'] as const;
export type AuditStreamType = (typeof AUDIT_STREAM_TYPES)[number];

/** Datadog's sites (its `site` setting): the logs intake is `http-intake.logs.<site>`. */
export const DATADOG_SITES = [
  'datadoghq.com',
  'us3.datadoghq.com',
  'us5.datadoghq.com',
  'datadoghq.eu',
  'ap1.datadoghq.com',
  'ap2.datadoghq.com',
  'uk1.datadoghq.com',
  'ddog-gov.com',
] as const;
export type DatadogSite = (typeof DATADOG_SITES)[number];

/** `disabled` by PATCH, or (once delivery exists) after 3 days of failures; PATCH `active` enables it again. */
export const AUDIT_STREAM_STATUSES = ['active', 'disabled'] as const;
export type AuditStreamStatus = (typeof AUDIT_STREAM_STATUSES)[number];

/** The credentials a stream may hold, each sealed under its own name in the context. */
export const STREAM_CREDENTIALS = ['secret', 'headers', 'token', 'apiKey'] as const;
export type StreamCredential = (typeof STREAM_CREDENTIALS)[number];

/** An https receiver: signed like a webhook; its headers' names shown, their values sealed (they are often tokens). */
export interface HttpsTarget {
  type: 'https';
  url: string;
  /** The names of the headers sent with each batch, as given. */
  headers: string[];
  /** `whsec_…` and the secret's last four characters. */
  secretHint: string;
}

/** Splunk's HTTP Event Collector: its url; the token sealed. */
export interface SplunkHecTarget {
  type: 'splunk-hec';
  url: string;
}

/** Datadog's logs intake of a site; the API key sealed. */
export interface DatadogTarget {
  type: 'datadog';
  site: DatadogSite;
}

export type StreamTarget = HttpsTarget | SplunkHecTarget | DatadogTarget;

/** Why the last delivery failed: the receiver's status (null when none answered) and a short reason, never a url or credential. */
export interface StreamDeliveryError {
  statusCode: number | null;
  reason: string;
  at: string;
}

/**
 * What the delivery keeps on the stream's item (delivery/stream-health.ts), each absent until it first happens:
 * read-only fields of the answer, never changed by the API but for `failingSince`, which enabling a stream clears.
 */
export interface StreamHealth {
  /** The first failure since the last success: the 3-day window that disables the stream runs from it. */
  failingSince?: string;
  /** The last delivery that succeeded, to the minute (a healthy stream's item is rewritten at most once a minute). */
  lastDeliveredAt?: string;
  lastError?: StreamDeliveryError;
}

export type AuditStreamRecord = StreamTarget &
  StreamHealth & {
    id: string;
    /** The workspace's `acc_` account (the principal's `accountId` at creation). */
    accountId: string;
    status: AuditStreamStatus;
    /** Each credential the type has, sealed with the context {workspaceId, auditStreamId, credential}. */
    sealed: Partial<Record<StreamCredential, SealedValue>>;
    createdAt: string;
    updatedAt: string;
    /** Counts the item's writes: every update holds only while the item is as it was read. */
    revision: number;
  };

/**
 * Headers a delivery sets itself (its body, its signature, the connection): a stream may not replace them. Compared
 * in lower case, as HTTP names are. Here, not beside the schemas, so the worker's formats carry no zod.
 */
export const RESERVED_HEADERS = [
  'host',
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'connection',
  'service-signature',
] as const;
