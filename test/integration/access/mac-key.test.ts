import { hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { macKeyContext } from '../../../shared/platform/crypto/context.ts';
import { LOCAL_MASTER_KEY_FILE, makeLocalKeyring } from '../../../shared/platform/crypto/local-keyring.ts';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';

/** Every form in which key material could show up in text: hex, base64 and base64url. */
const forms = (key: Buffer) => [key.toString('hex'), key.toString('base64'), key.toString('base64url')];

describe('the service MAC keys', () => {
  it('are stored only sealed, and neither they nor a key derived from them reach an answer or the log', async () => {
    // Prepare: the roots as the table holds them, unsealed here with the stack's keyring, and the purpose keys
    const { doc, tableName } = localStore();
    const item = (await doc.send(new GetCommand({ TableName: tableName, Key: keys.macKey() }))).Item!;
    const keyring = makeLocalKeyring({ keyFile: join(inject('localDir'), LOCAL_MASTER_KEY_FILE) });
    const roots = [
      await keyring.decryptDataKey(Buffer.from(item.service, 'base64'), macKeyContext('service')),
      await keyring.decryptDataKey(Buffer.from(item.token, 'base64'), macKeyContext('token')),
    ];
    const labels = ['token-checksum', 'idempotency-request', 'idempotency-record'].map((name) => `secrets-service/v1/${name}`);
    const derived = roots.flatMap((root) => labels.map((label) => Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), label, 32))));
    const ws = await newWorkspace();
    // Act: tokens good and bad, idempotent writes and their replays, a refusal
    const answers = [
      await call('GET', '/api/v1/projects', { token: ws.apiKey }),
      await call('GET', '/api/v1/projects', { token: `${ws.apiKey.slice(0, -30)}${'A'.repeat(4)}${ws.apiKey.slice(-26)}` }),
      await call('POST', '/api/v1/projects', { token: ws.apiKey, headers: { 'idempotency-key': 'mac-1' }, body: { name: 'p' } }),
      await call('POST', '/api/v1/projects', { token: ws.apiKey, headers: { 'idempotency-key': 'mac-1' }, body: { name: 'p' } }),
      await call('POST', '/api/v1/access-keys', { token: ws.apiKey, headers: { 'idempotency-key': 'mac-2' }, body: { name: 'k' } }),
    ];
    // Assess
    const shown = `${JSON.stringify(answers.map((answer) => [answer.body, [...answer.headers]]))}\n${readFileSync(join(inject('localDir'), 'stack.log'), 'utf8')}\n${JSON.stringify(item)}`;
    expect(answers.map((answer) => answer.status)).toEqual([200, 401, 201, 201, 201]);
    for (const key of [...roots, ...derived]) for (const form of forms(key)) expect(shown).not.toContain(form);
  });
});
