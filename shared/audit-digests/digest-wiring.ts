import { logger } from '../platform/logger.ts';
import type { Pager } from '../platform/store/pager.ts';
import type { Db } from '../platform/store/send.ts';
import { makeFolderDigestBucket, s3DigestBucket, type DigestBucket } from './digest-bucket.ts';
import { makeDigestMaker } from './digest-maker.ts';
import { digestPeriodSeconds } from './digest-record.ts';
import { digestSignerOf, oneOf, type Settings } from './digest-signer-wiring.ts';
import { makeDigestStore } from './digest-store.ts';

export { digestSignerOf, keyringDigestSigner } from './digest-signer-wiring.ts';

/**
 * How the digester is wired, from its settings: on AWS the KMS key `AUDIT_SIGNING_KEY_ID` and the bucket
 * `AUDIT_BUCKET`; under the local stack the local keyring's signing key (`AUDIT_LOCAL_SIGNING_KEY_FILE`) and the
 * folder bucket (`AUDIT_LOCAL_BUCKET_DIR`), as `KMS_KEY_ID` and `LOCAL_KEYRING_FILE` choose the data keys' provider.
 * Read once at cold start; a missing or doubled setting fails there, naming it.
 */

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
