import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateSecretCommand } from '@aws-sdk/client-secrets-manager';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { call, newWorkspace } from '../../support/api.ts';
import { runCli } from '../../support/cli.ts';
import { newEnvironment } from '../../support/secrets.ts';
import { awsKey, client } from '../aws/support.ts';

/**
 * The CLI over what the AWS API can make (decisions.md v1.4): a secret without a value (`secrets list` shows it as
 * `(no value)`; `run` and `export` leave it out) and a binary value (passed base64-encoded, named on stderr, never
 * its value there); and a rotation schedule past AWS's 4-hour floor, refused through the CLI as through REST.
 */
describe('the secrets CLI with secrets without a value, binary values and the rotation floor', () => {
  let folder: string;
  let env: NodeJS.ProcessEnv;
  const bytes = Buffer.from([0, 159, 146, 150, 10]);
  const secrets = (args: string[]) => runCli(args, { cwd: folder, env });

  beforeAll(async () => {
    const ws = await newWorkspace();
    await newEnvironment(ws.apiKey, { project: 'bin', environment: 'prod' });
    const sm = client(await awsKey(ws));
    await sm.send(new CreateSecretCommand({ Name: 'bin/prod/EMPTY' }));
    await sm.send(new CreateSecretCommand({ Name: 'bin/prod/CERT', SecretBinary: bytes }));
    await sm.send(new CreateSecretCommand({ Name: 'bin/prod/PLAIN', SecretString: 'text' }));
    const token = (await call('POST', '/api/v1/access-keys', { token: ws.apiKey, body: { name: 'cli' } })).body.data.token;
    folder = mkdtempSync(join(tmpdir(), 'secrets-cli-v14-'));
    env = {
      ...process.env,
      SECRETS_API_URL: inject('stack').baseUrl,
      SECRETS_TOKEN: token,
      SECRETS_PROJECT: 'bin',
      SECRETS_ENV: 'prod',
      XDG_CACHE_HOME: mkdtempSync(join(tmpdir(), 'secrets-cache-')),
    };
  });

  it('list shows a secret without a value as (no value); export leaves it out', async () => {
    const listed = await secrets(['list']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^EMPTY\t\(no value\)\t/m);
    expect(listed.stdout).toMatch(/^PLAIN\tv1\t/m);
    const exported = await secrets(['export', '--format', 'json']);
    expect(JSON.parse(exported.stdout)).not.toHaveProperty('EMPTY');
  });

  it('run, export and get pass a binary value base64-encoded and name it on stderr', async () => {
    const base64 = bytes.toString('base64');
    const exported = await secrets(['export', '--format', 'json']);
    expect(JSON.parse(exported.stdout)).toEqual({ CERT: base64, PLAIN: 'text' });
    expect(exported.stderr).toContain('CERT is a binary value: passed base64-encoded');
    expect(exported.stderr).not.toContain(base64);
    const ran = await secrets(['run', '--', process.execPath, '-e', 'process.stdout.write(process.env.CERT)']);
    expect([ran.code, ran.stdout]).toEqual([0, base64]);
    expect(ran.stderr).toContain('CERT is a binary value');
    const got = await secrets(['get', 'CERT']);
    expect([got.code, got.stdout]).toEqual([0, `${base64}\n`]);
    expect(got.stderr).toContain('CERT is a binary value: printed base64-encoded');
    expect((await secrets(['get', 'PLAIN'])).stderr).toBe('');
  });

  it('rotation set refuses a cron schedule whose rotations could start under 4 hours apart, naming schedule', async () => {
    const refused = await secrets(['rotation', 'set', 'PLAIN', '--schedule', 'cron(0 0/3 * * ? *)']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/VALIDATION_ERROR.*schedule.*4 hours/s);
    const accepted = await secrets(['rotation', 'set', 'PLAIN', '--schedule', 'cron(0 0/4 * * ? *)']);
    expect(accepted.code).toBe(0);
  });
});
