import { auditStreamCredentialContext } from '../../platform/crypto/context.ts';
import type { Cipher } from '../../platform/crypto/envelope.ts';
import type { AuditStreamRecord, StreamCredential } from '../stream-records.ts';
import type { OpenedStream } from './stream-formats.ts';

/**
 * A stream's destination with its credentials unsealed for one delivery, each under the context it was sealed with
 * (stream-service.ts: {workspaceId, auditStreamId, credential}), so a sealed value copied onto another stream or
 * workspace does not open. What the worker's `openCredentials` part is, given the service's cipher.
 */
export function streamOpener(cipher: Pick<Cipher, 'decrypt'>) {
  return async (workspaceId: string, stream: AuditStreamRecord): Promise<OpenedStream> => {
    const open = async (name: StreamCredential): Promise<string | undefined> => {
      const sealed = stream.sealed[name];
      return sealed && cipher.decrypt(sealed, auditStreamCredentialContext(workspaceId, stream.id, name));
    };
    if (stream.type === 'datadog') return { type: 'datadog', site: stream.site, apiKey: required(await open('apiKey'), 'apiKey') };
    if (stream.type === 'splunk-hec') return { type: 'splunk-hec', url: stream.url, token: required(await open('token'), 'token') };
    const [secret, headers] = await Promise.all([open('secret'), open('headers')]);
    // Header values are sealed together as one JSON object (stream-targets.ts); a stream without headers has none sealed.
    return { type: 'https', url: stream.url, secret: required(secret, 'secret'), headers: headers ? JSON.parse(headers) : {} };
  };
}

/** A credential the type needs; its absence (a damaged item) fails the delivery, naming the credential only. */
function required(value: string | undefined, name: StreamCredential): string {
  if (value === undefined) throw new Error(`the stream has no sealed ${name}`);
  return value;
}
