import { describe, expect, it } from 'vitest';
import { streamOpener } from '../../../shared/audit-streams/delivery/stream-open.ts';
import type { AuditStreamRecord } from '../../../shared/audit-streams/stream-records.ts';
import { auditStreamCredentialContext } from '../../../shared/platform/crypto/context.ts';
import { caught, fakeCipher, sealedFor } from '../support/fakes.ts';
import { DATADOG_KEY, HEADER_VALUE, SPLUNK_TOKEN } from './support.ts';
import { httpsStream, SIGNING_SECRET, WS } from './worker-support.ts';

const base = { accountId: 'acc_1', status: 'active', createdAt: '', updatedAt: '', revision: 1 } as const;

describe('audit stream opener', () => {
  it('unseals each credential under its own context {workspaceId, auditStreamId, credential}', async () => {
    const cipher = fakeCipher();
    const open = streamOpener(cipher);
    const splunk = {
      ...base,
      id: 'as_s',
      type: 'splunk-hec',
      url: 'https://splunk.example',
      sealed: { token: sealedFor(SPLUNK_TOKEN, auditStreamCredentialContext(WS, 'as_s', 'token')) },
    } as AuditStreamRecord;
    const datadog = {
      ...base,
      id: 'as_d',
      type: 'datadog',
      site: 'datadoghq.eu',
      sealed: { apiKey: sealedFor(DATADOG_KEY, auditStreamCredentialContext(WS, 'as_d', 'apiKey')) },
    } as AuditStreamRecord;

    expect(await open(WS, httpsStream())).toEqual({
      type: 'https',
      url: 'https://siem.example/ingest?k=QUERYtoken42',
      secret: SIGNING_SECRET,
      headers: { Authorization: HEADER_VALUE },
    });
    expect(await open(WS, splunk)).toEqual({ type: 'splunk-hec', url: 'https://splunk.example', token: SPLUNK_TOKEN });
    expect(await open(WS, datadog)).toEqual({ type: 'datadog', site: 'datadoghq.eu', apiKey: DATADOG_KEY });
  });

  it('an https stream without headers sends none; a credential sealed for another workspace does not open', async () => {
    const open = streamOpener(fakeCipher());
    const bare = httpsStream();
    delete bare.sealed.headers;

    expect((await open(WS, bare)) as { headers: object }).toMatchObject({ headers: {} });
    expect((await caught(() => open('ws_other', httpsStream()))).message).toMatch(/context mismatch/);
  });

  it('a stream missing a credential its type needs fails, naming the credential only', async () => {
    const broken = httpsStream();
    delete broken.sealed.secret;

    expect((await caught(() => streamOpener(fakeCipher())(WS, broken))).message).toBe('the stream has no sealed secret');
  });
});
