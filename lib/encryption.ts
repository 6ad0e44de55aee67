import { CfnOutput, Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { MAC_KEY_CONTEXT, MAC_KEY_PURPOSES } from '../shared/platform/crypto/context.ts';

export interface EncryptionConstructProps {
  readonly stage: string;
  /** @default RemovalPolicy.RETAIN: a deleted key makes every secret it wrapped unreadable */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * What the account (and through its IAM policies, an administrator or the CloudFormation deploy role) may do with
 * the key: administer it, never use it. This is the "key administrators" list of AWS's default key policy with one
 * narrowing: its `kms:Create*` becomes `kms:CreateAlias`, because `Create*` also covers CreateGrant, and a grant
 * hands out use (Decrypt included) without a key-policy change. So: no Encrypt, Decrypt, GenerateDataKey*,
 * ReEncrypt* or CreateGrant. What CloudFormation needs to create, update, tag, rotate and retire the key and its
 * alias stays (PutKeyPolicy, DescribeKey, GetKeyPolicy, Enable/DisableKeyRotation, UpdateKeyDescription,
 * TagResource, UntagResource, ListResourceTags, Create/Update/DeleteAlias, ScheduleKeyDeletion; test/infra pins
 * them), and so an administrator can still break glass, visibly: the policy change is in CloudTrail and the
 * key-policy rule (lib/monitoring.ts) reports it.
 */
export const KEY_ADMINISTRATION_ACTIONS = [
  'kms:CreateAlias',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:Get*',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
  'kms:RotateKeyOnDemand',
] as const;

/**
 * What operators (the admin CLI, with the account's IAM credentials) may do with the key, and nothing more: make the
 * two MAC roots (GenerateDataKey under `{purpose}` = either root's purpose), and unseal only the token root (they
 * issue API keys, whose checksums derive from it). Never the service root: with table access it would be an
 * offline oracle for the idempotency digests. Every other use stays with the function roles (docs/operations.md,
 * "The service MAC key").
 */
function operatorMacKeyStatements(): PolicyStatement[] {
  const purpose = (values: string[]) => ({
    'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...MAC_KEY_CONTEXT] },
    Null: { 'kms:EncryptionContext:purpose': 'false' },
    StringEquals: { 'kms:EncryptionContext:purpose': values },
  });
  const principals = [new AccountRootPrincipal()];
  const statement = (sid: string, action: string, purposes: string[]) =>
    new PolicyStatement({ sid, principals, actions: [action], resources: ['*'], conditions: purpose(purposes) });
  return [
    statement('OperatorsMakeMacKeys', 'kms:GenerateDataKey', Object.values(MAC_KEY_PURPOSES)),
    statement('OperatorsUnsealTheTokenChecksumKey', 'kms:Decrypt', [MAC_KEY_PURPOSES.token]),
  ];
}

/**
 * The customer-managed KMS key that wraps the data keys of secret values and webhook signing secrets (envelope
 * encryption). Separation of duties, as AWS documents it for KMS: the account administers the key (and makes the
 * MAC roots, unsealing only the token root: `operatorMacKeyStatements`); only the function roles that need it may
 * use it otherwise, each named in the key policy itself (as `aws:PrincipalArn`) with its
 * actions and encryption context (`ServiceFunction.bindKey`, from lib/access.ts). Broad IAM rights plus table read
 * access therefore no longer decrypt anything: reading secrets outside the service takes a key-policy change first
 * (or acting as a function role: docs/operations.md says what the key policy cannot stop).
 */
export class EncryptionConstruct extends Construct {
  readonly key: Key;
  /** The key's alias, `alias/<stage>-secrets`: a name the AWS API accepts as `KmsKeyId` (decisions.md v1.4). */
  readonly keyAlias: string;

  constructor(scope: Construct, id: string, props: EncryptionConstructProps) {
    super(scope, id);
    const keyPolicy = new PolicyDocument({
      statements: [
        new PolicyStatement({
          sid: 'KeyAdministrationByThisAccount',
          principals: [new AccountRootPrincipal()],
          actions: [...KEY_ADMINISTRATION_ACTIONS],
          // In a key policy "*" means this key; KMS rejects a key policy that names the key's own ARN.
          resources: ['*'],
        }),
        ...operatorMacKeyStatements(),
      ],
    });
    this.keyAlias = `alias/${props.stage}-secrets`;
    this.key = new Key(this, 'SecretsKey', {
      description: `Wraps the data keys of the ${props.stage} secrets service`,
      alias: this.keyAlias,
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
