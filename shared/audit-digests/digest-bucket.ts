import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { announceClient } from '../platform/clients/hooks.ts';

/**
 * Where digests and their periods' entries are kept for good: an S3 bucket with Object Lock in compliance mode on
 * AWS (its default retention, set by the CDK stack, locks every object: no lock header per object), a folder under
 * the local stack. Both write an object once and never over another, so a digest, once written, is the digest.
 */
export interface DigestBucket {
  /** Writes `body` at `key` unless an object is there: 'exists' then, and the stored object is left as it is. */
  putOnce(key: string, body: string | Uint8Array, contentType: string): Promise<'written' | 'exists'>;
  /** The object at `key`, or undefined when there is none. */
  get(key: string): Promise<Buffer | undefined>;
}

/** The key of a period's digest: `<workspaceId>/<hourStart>.digest.json` (decisions.md). */
export const digestKey = (workspaceId: string, hourStart: string): string => `${workspaceId}/${hourStart}.digest.json`;

/** The key of a period's entries, gzipped canonical JSON lines: `<workspaceId>/<hourStart>.jsonl.gz`. */
export const entriesKey = (workspaceId: string, hourStart: string): string => `${workspaceId}/${hourStart}.jsonl.gz`;

/** S3's answer to a conditional write that found an object there (412). A 409, another write of it under way, is thrown: the next run finds the object. */
function alreadyThere(error: unknown): boolean {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'PreconditionFailed' || failure.$metadata?.httpStatusCode === 412;
}

/**
 * The bucket on S3. `IfNoneMatch: '*'` makes the write conditional in S3 itself, so two runs racing on one period
 * cannot both write (the loser gets 412, read as 'exists'); a checksum is sent because S3 refuses an upload without
 * one to a bucket with Object Lock.
 */
export function makeS3DigestBucket(options: { s3: S3Client; bucket: string }): DigestBucket {
  const { s3, bucket } = options;
  return {
    async putOnce(key, body, contentType) {
      try {
        await s3.send(
          new PutObjectCommand({
            Bucket: bucket,
            Key: key,
            Body: body,
            ContentType: contentType,
            IfNoneMatch: '*',
            ChecksumAlgorithm: 'SHA256',
          }),
        );
        return 'written';
      } catch (error) {
        if (alreadyThere(error)) return 'exists';
        throw error;
      }
    },
    async get(key) {
      try {
        const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        return out.Body ? Buffer.from(await out.Body.transformToByteArray()) : undefined;
      } catch (error) {
        if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
        throw error;
      }
    },
  };
}

/** The container's S3 client, made on first use and then kept (never one per run). */
let containerS3: S3Client | undefined;

/** The container's bucket `bucket` over its one S3 client. */
export function s3DigestBucket(bucket: string): DigestBucket {
  containerS3 ??= announceClient(new S3Client({ maxAttempts: 3 }), 'S3');
  return makeS3DigestBucket({ s3: containerS3, bucket });
}

/** Refuses a key that could leave the folder: the keys are the service's own, so one that does is a fault. */
function assertInsideFolder(key: string): void {
  if (key.startsWith('/') || key.split('/').some((part) => part === '..' || part === '' || part === '.')) {
    throw new RangeError('A digest bucket key must be a relative path inside the bucket');
  }
}

/**
 * The local stack's bucket: a folder (`<LOCAL_DIR>/audit-bucket/`, made on first write) that refuses to overwrite
 * a file, as Object Lock refuses on AWS. A file is written whole under a temporary name (opened with 'wx') and then
 * hard-linked into place: the link fails if the file exists, and a reader never sees half of one.
 */
export function makeFolderDigestBucket(folder: string): DigestBucket {
  return {
    async putOnce(key, body) {
      assertInsideFolder(key);
      const file = join(folder, key);
      await mkdir(dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
      await writeFile(temporary, body, { flag: 'wx' });
      try {
        await link(temporary, file);
        return 'written';
      } catch (error) {
        if ((error as { code?: string }).code === 'EEXIST') return 'exists';
        throw error;
      } finally {
        await unlink(temporary);
      }
    },
    async get(key) {
      assertInsideFolder(key);
      try {
        return await readFile(join(folder, key));
      } catch (error) {
        if ((error as { code?: string }).code === 'ENOENT') return undefined;
        throw error;
      }
    },
  };
}
