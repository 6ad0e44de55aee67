/**
 * Tamper evidence for the audit log (decisions.md, "Audit streams and tamper evidence"): the canonical form of a
 * period's entries, the signed and chained digest of each period with entries, its signers (KMS, local key) and the
 * verifier that checks entries, chain and signatures with the public key alone. Entry modules besides this file
 * (architecture.test.ts reads these lines), for the audit route group, which must not carry the digester's S3 and KMS code:
 * @entry digest-read-wiring.ts the digests' reads as the audit route group builds them
 * @entry digest-answers.ts what the audit route group answers of digests, for it and the API description
 */
export { canonicalEntryLine, canonicalLines, entriesSha256, type DigestedEntry } from './digest-canonical.ts';
export {
  DEFAULT_PERIOD_SECONDS,
  digestJson,
  digestPeriodSeconds,
  digestSha256,
  MAX_PERIODS_PER_RUN,
  periodDueAt,
  periodStart,
  periodsToDigest,
  signedBytes,
  unsignedDigest,
  type AuditDigest,
  type UnsignedDigest,
} from './digest-record.ts';
export { kmsDigestSigner, makeKmsDigestSigner, makeLocalDigestSigner, signDigest, type DigestSigner } from './digest-signer.ts';
export { verifiedRange, verifyAudit, type AuditBreak, type VerifyInput, type VerifyResult } from './digest-verify.ts';
export { digestKey, entriesKey, makeFolderDigestBucket, makeS3DigestBucket, type DigestBucket } from './digest-bucket.ts';
export { DigestConflictError, makeDigestMaker, type DigestMaker, type DigestRun } from './digest-maker.ts';
export { makeDigestStore, type DigestStore } from './digest-store.ts';
export { digestBucketOf, digestMakerOf, digestSignerOf, keyringDigestSigner } from './digest-wiring.ts';
