import { ValidationError } from '../platform/errors.ts';
import { newSigningSecret, secretHint } from '../webhooks/index.ts';
import type { AuditStreamRecord, StreamCredential, StreamTarget } from './stream-records.ts';
import type { StreamInput, StreamPatch } from './stream-schemas.ts';

/**
 * A stream's destination as a request gives it, split into what is stored in the clear (the target) and the
 * credentials the service seals (decisions.md v1.4, "Audit streams"), and a PATCH checked against the stream's type,
 * each refusal a VALIDATION_ERROR naming the field and the rule.
 */

/** The SSRF guard's verdict on a url (the webhooks' check: https, public addresses unless the allow-list opens them). */
export type UrlCheck = (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;

/** Credentials in the clear, by name, on their way to being sealed (header values as one JSON object). */
export type Credentials = Partial<Record<StreamCredential, string>>;

/** The url through the SSRF guard, refused as VALIDATION_ERROR `url: <reason>` (the reason never repeats the url). */
export async function assertUrlAllowed(url: string, checkUrl: UrlCheck): Promise<void> {
  const verdict = await checkUrl(url);
  if (!verdict.ok) throw new ValidationError(`url: ${verdict.reason}`);
}

/** A new stream's target and credentials: an https stream gets its `whsec_` signing secret here. */
export function newTarget(input: StreamInput): { target: StreamTarget; credentials: Credentials } {
  if (input.type === 'datadog') return { target: { type: 'datadog', site: input.site }, credentials: { apiKey: input.apiKey } };
  if (input.type === 'splunk-hec') return { target: { type: 'splunk-hec', url: input.url }, credentials: { token: input.token } };
  const secret = newSigningSecret();
  const headers = input.headers ?? {};
  return {
    target: { type: 'https', url: input.url, headers: Object.keys(headers), secretHint: secretHint(secret) },
    credentials: { secret, ...(Object.keys(headers).length > 0 && { headers: JSON.stringify(headers) }) },
  };
}

/** Which PATCH fields each type has (`status` every type has). */
const FIELDS_OF: Record<StreamTarget['type'], readonly (keyof StreamPatch)[]> = {
  https: ['url', 'headers'],
  'splunk-hec': ['url', 'token'],
  datadog: ['site', 'apiKey'],
};

/** A PATCH's field the stream's type has not is refused, naming the field and the type's own fields. */
export function assertPatchFits(stream: AuditStreamRecord, patch: StreamPatch): void {
  const own = FIELDS_OF[stream.type];
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined || field === 'status' || own.includes(field as keyof StreamPatch)) continue;
    throw new ValidationError(`${field}: a ${stream.type} stream has none (it has ${own.join(' and ')}); the type never changes`);
  }
}

/**
 * The clear fields a PATCH changes and the credentials it replaces (a null `headers` removes them: `headers` then
 * names no credential to keep).
 */
export function patchedTarget(patch: StreamPatch): {
  fields: { url?: string; site?: string; headers?: string[] };
  credentials: Credentials;
  dropped: StreamCredential[];
} {
  const fields = {
    ...(patch.url !== undefined && { url: patch.url }),
    ...(patch.site !== undefined && { site: patch.site }),
    ...(patch.headers !== undefined && { headers: Object.keys(patch.headers ?? {}) }),
  };
  const headerCount = patch.headers ? Object.keys(patch.headers).length : 0;
  const credentials: Credentials = {
    ...(patch.token !== undefined && { token: patch.token }),
    ...(patch.apiKey !== undefined && { apiKey: patch.apiKey }),
    ...(headerCount > 0 && { headers: JSON.stringify(patch.headers) }),
  };
  const dropped: StreamCredential[] = patch.headers !== undefined && headerCount === 0 ? ['headers'] : [];
  return { fields, credentials, dropped };
}
