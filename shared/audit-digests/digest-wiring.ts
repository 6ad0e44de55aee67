import { loadOrCreateDigestSigningKey } from '../platform/crypto/local-keyring.ts';
import { logger } from '../platform/logger.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeFolderDigestBucket, s3DigestBucket, type DigestBucket } from './digest-bucket.ts';
import { makeDigestMaker } from './digest-maker.ts';
import { digestPeriodSeconds } from './digest-record.ts';
import { kmsDigestSigner, makeLocalDigestSigner, type DigestSigner } from './digest-signer.ts';
import { makeDigestStore } from './digest-store.ts';

/**
 * How the digester is wired, from its settings: on AWS the KMS key `AUDIT_SIGNING_KEY_ID` and the bucket
 * `AUDIT_BUCKET`; under the local stack the local keyring's signing key (`AUDIT_LOCAL_SIGNING_KEY_FILE`) and the
 * folder bucket (`AUDIT_LOCAL_BUCKET_DIR`), as `KMS_KEY_ID` and `LOCAL_KEYRING_FILE` choose the data keys' provider.
 * Read once at cold start; a missing or doubled setting fails there, naming it.
 */

type Settings = Partial<Record<string, string>>;

/** One of two settings, exactly: the AWS one or its local stand-in's. */
function oneOf(env: Settings, aws: string, local: string): { aws: string } | { local: string } {
  const [a, l] = [env[aws]?.trim(), env[local]?.trim()];
  if (a && l) throw new Error(`Invalid configuration: set ${aws} or ${local}, not both`);
  if (a) return { aws: a };
  if (l) return { local: l };
  throw new Error(`Invalid configuration: ${aws} (or ${local} for the local stack) is required`);
}

/** A signer over the local keyring's digest key, read (or made) on the first signature, then kept. */
export function keyringDigestSigner(keyFile: string): DigestSigner {
  const signer = loadOnce(async () => makeLocalDigestSigner(await loadOrCreateDigestSigningKey(keyFile)));
  return {
    sign: async (bytes) => (await signer()).sign(bytes),
    publicKeyPem: async () => (await signer()).publicKeyPem(),
  };
}

/** The digest signer the settings name: the KMS key's, or the local keyring's. */
export function digestSignerOf(env: Settings): DigestSigner {
  const key = oneOf(env, 'AUDIT_SIGNING_KEY_ID', 'AUDIT_LOCAL_SIGNING_KEY_FILE');
  return 'aws' in key ? kmsDigestSigner(key.aws) : keyringDigestSigner(key.local);
}

/** The digest bucket the settings name: the S3 bucket, or the local folder. */
export function digestBucketOf(env: Settings): DigestBucket {
  const bucket = oneOf(env, 'AUDIT_BUCKET', 'AUDIT_LOCAL_BUCKET_DIR');
  return 'aws' in bucket ? s3DigestBucket(bucket.aws) : makeFolderDigestBucket(bucket.local);
}

/** The digester as its function (functions/audit-digester) builds it once per container. */
export function digestMakerOf(deps: { db: Db; pager: Pager; env: Settings }) {
  const store = makeDigestStore(deps.db, deps.pager);
  return makeDigestMaker({
    store,
    workspaces: () => store.workspaceIds(),
    bucket: digestBucketOf(deps.env),
    signer: digestSignerOf(deps.env),
    periodSeconds: digestPeriodSeconds(deps.env.AUDIT_DIGEST_PERIOD_SECONDS),
    log: logger,
  });
}
