/**
 * What other parts use of the AWS API adapter: the one SigV4 verifier (sigv4.ts: the Authorization header parsed,
 * its scope, date and payload hash checked, the signature recomputed with the AWS SDK's signer), which the local STS
 * stand-in (bin/local/sts.ts) checks signatures with too.
 */
export {
  checkScope,
  isRefusal,
  parseAuthorization,
  signatureHolds,
  type SignedRequest,
  type SigV4Authorization,
  type SigV4Refusal,
} from './sigv4.ts';
