import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { digestKey, entriesKey, makeFolderDigestBucket, makeS3DigestBucket } from '../../../shared/audit-digests/digest-bucket.ts';

const WS = 'ws_01JAAAAAAAAAAAAAAAAAAAAAAA';
const HOUR = '2026-12-01T09:00:00.000Z';

describe('digest bucket keys', () => {
  it('are <workspaceId>/<hourStart>.digest.json and .jsonl.gz', () => {
    // Act / Assess
    expect(digestKey(WS, HOUR)).toBe(`${WS}/${HOUR}.digest.json`);
    expect(entriesKey(WS, HOUR)).toBe(`${WS}/${HOUR}.jsonl.gz`);
  });
});

describe('folder digest bucket', () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'digest-bucket-'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('makes the folder on first write and refuses to overwrite a file, which keeps its first contents', async () => {
    // Prepare
    const folder = join(root, 'audit-bucket');
    const bucket = makeFolderDigestBucket(folder);

    // Act
    const first = await bucket.putOnce(digestKey(WS, HOUR), '{"a":1}', 'application/json');
    const second = await bucket.putOnce(digestKey(WS, HOUR), '{"a":2}', 'application/json');

    // Assess: and no temporary file is left behind.
    expect([first, second]).toEqual(['written', 'exists']);
    expect(await readFile(join(folder, WS, `${HOUR}.digest.json`), 'utf8')).toBe('{"a":1}');
    expect((await bucket.get(digestKey(WS, HOUR)))!.toString('utf8')).toBe('{"a":1}');
    expect(await readdir(join(folder, WS))).toEqual([`${HOUR}.digest.json`]);
  });

  it('answers undefined for an object it does not hold', async () => {
    // Act / Assess
    expect(await makeFolderDigestBucket(root).get(digestKey(WS, HOUR))).toBeUndefined();
  });

  it.each(['../outside.json', '/etc/passwd', `${WS}/../../x`, `${WS}//x`])('refuses a key that leaves the folder: %s', async (key) => {
    // Prepare
    const bucket = makeFolderDigestBucket(join(root, 'audit-bucket'));

    // Act / Assess
    await expect(bucket.putOnce(key, 'x', 'text/plain')).rejects.toThrow('A digest bucket key must be a relative path inside the bucket');
    await expect(bucket.get(key)).rejects.toThrow('A digest bucket key must be a relative path inside the bucket');
  });
});

describe('S3 digest bucket', () => {
  const s3Mock = mockClient(S3Client);
  const bucket = makeS3DigestBucket({ s3: new S3Client({ region: 'eu-west-1' }), bucket: 'audit-digests' });
  beforeEach(() => {
    s3Mock.reset();
  });

  it('writes with If-None-Match * and a checksum, and no lock header of its own (the bucket default retention applies)', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).resolves({});

    // Act
    const written = await bucket.putOnce(entriesKey(WS, HOUR), Buffer.from('gz'), 'application/gzip');

    // Assess
    expect(written).toBe('written');
    const input = s3Mock.commandCalls(PutObjectCommand)[0]!.args[0].input;
    expect(input).toEqual({
      Bucket: 'audit-digests',
      Key: `${WS}/${HOUR}.jsonl.gz`,
      Body: Buffer.from('gz'),
      ContentType: 'application/gzip',
      IfNoneMatch: '*',
      ChecksumAlgorithm: 'SHA256',
    });
  });

  it('answers exists when S3 answers 412 Precondition Failed', async () => {
    // Prepare
    s3Mock.on(PutObjectCommand).rejects(
      Object.assign(new Error('At least one of the pre-conditions you specified did not hold'), {
        name: 'PreconditionFailed',
        $metadata: { httpStatusCode: 412 },
      }),
    );

    // Act / Assess
    expect(await bucket.putOnce(digestKey(WS, HOUR), '{}', 'application/json')).toBe('exists');
  });

  it('throws any other failure (a 409 of a concurrent write included): the run fails and the next one goes on', async () => {
    // Prepare
    s3Mock
      .on(PutObjectCommand)
      .rejects(Object.assign(new Error('conflict'), { name: 'ConditionalRequestConflict', $metadata: { httpStatusCode: 409 } }));

    // Act / Assess
    await expect(bucket.putOnce(digestKey(WS, HOUR), '{}', 'application/json')).rejects.toThrow('conflict');
  });

  it('reads an object, and answers undefined for NoSuchKey', async () => {
    // Prepare
    s3Mock
      .on(GetObjectCommand)
      .resolvesOnce({ Body: { transformToByteArray: async () => new Uint8Array([123, 125]) } as never })
      .rejectsOnce(Object.assign(new Error('The specified key does not exist.'), { name: 'NoSuchKey' }));

    // Act
    const found = await bucket.get(digestKey(WS, HOUR));
    const missing = await bucket.get(digestKey(WS, '2026-12-01T10:00:00.000Z'));

    // Assess
    expect(found!.toString('utf8')).toBe('{}');
    expect(missing).toBeUndefined();
  });
});
