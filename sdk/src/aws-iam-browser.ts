/**
 * What a browser bundle gets in place of aws-iam.ts (the package's `browser` field maps one onto the other): an AWS
 * IAM login signs with the AWS SDK and the Node credential chain, which a browser has not, so asking for one is a
 * TypeError at once, as any other impossible login setting is.
 */
import type { AwsIamPlace, AwsIamSettings, SignedRequest } from './aws-iam.js';

const UNAVAILABLE = 'an aws_iam login signs with AWS credentials from Node: it is not available in a browser';

export function awsIamSettings(_place: AwsIamPlace, _baseUrl: string): AwsIamSettings {
  throw new TypeError(UNAVAILABLE);
}

export function makeAwsIamSigner(_settings: AwsIamSettings): () => Promise<SignedRequest> {
  throw new TypeError(UNAVAILABLE);
}
