import { CfnOutput, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface EncryptionConstructProps {
  readonly stage: string;
  /** @default RemovalPolicy.RETAIN: a deleted key makes every secret it wrapped unreadable */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The customer-managed KMS key that wraps the data keys of secret values and webhook signing secrets (envelope
 * encryption). Its key policy only delegates to IAM in this account: no principal gets the key from the key policy
 * itself, so every use is an IAM grant that names its actions and encryption context (lib/access.ts).
 */
export class EncryptionConstruct extends Construct {
  readonly key: Key;

  constructor(scope: Construct, id: string, props: EncryptionConstructProps) {
    super(scope, id);
    const keyPolicy = new PolicyDocument({
      statements: [
        new PolicyStatement({
          sid: 'DelegateToIamPoliciesOfThisAccount',
          principals: [new AccountRootPrincipal()],
          actions: ['kms:*'],
          // In a key policy "*" means this key; KMS rejects a key policy that names the key's own ARN.
          resources: ['*'],
        }),
      ],
    });
    this.key = new Key(this, 'SecretsKey', {
      description: `Wraps the data keys of the ${props.stage} secrets service`,
      alias: `alias/${props.stage}-secrets`,
      enableKeyRotation: true,
      policy: keyPolicy,
      pendingWindow: Duration.days(30),
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    new CfnOutput(this, 'SecretsKeyArn', { value: this.key.keyArn, description: 'The KMS key that wraps data keys' }).overrideLogicalId(
      'SecretsKeyArn',
    );
  }
}
