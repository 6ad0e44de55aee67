/**
 * What other parts use of the AWS API adapter: the one SigV4 verifier (sigv4.ts: the Authorization header parsed,
 * its scope, date and payload hash checked, the signature recomputed with the AWS SDK's signer), which the local STS
 * stand-in (bin/local/sts.ts) checks signatures with too; and what the AWS API's function builds at its cold start
 * (functions/aws/handler.ts): the handler of AWS JSON 1.1 requests and GetSecretValue. Entry modules besides this
 * file (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry operations.ts every other operation, which the function loads on the first call of one: a static path to them
 * through this file would put them in its cold start (esbuild places a module by static reachability, used or not)
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
export { makeAwsHandler, type AwsOperation, type LazyOperation } from './aws-handler.ts';
export { makeGetSecretValue } from './get-secret-value.ts';
