import { CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface EncryptionConstructProps {
  readonly stage: string;
  /** @default RemovalPolicy.RETAIN: a deleted key makes every secret it wrapped unreadable */
  readonly removalPolicy?: RemovalPolicy;
}

/** The customer-managed KMS key that wraps the secrets' data keys (envelope encryption). */
export class EncryptionConstruct extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: EncryptionConstructProps) {
    super(scope, id);
    this.key = new Key(this, 'SecretsKey', {
      description: `Wraps the data keys of the ${props.stage} secrets service`,
      alias: `alias/${props.stage}-secrets`,
      enableKeyRotation: true,
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    new CfnOutput(this, 'SecretsKeyArn', { value: this.key.keyArn });
  }
}
