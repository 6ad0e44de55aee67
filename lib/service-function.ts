import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import type { CfnTable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/** The repository root: entries, the lock file and tsconfig.json are resolved from here, not from the cwd. */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

/** The encryption context every secret value is bound to (shared/services/secrets.ts `secretContext`). */
const SECRET_CONTEXT_KEYS = ['workspaceId', 'secretId', 'version'] as const;

/** Makes `require` exist in the ESM bundle, for the CommonJS dependencies that esbuild inlines. */
const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface ServiceFunctionProps {
  /** Handler module relative to the project root, exporting `handler`. */
  readonly entry: string;
  readonly environment?: Record<string, string>;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default Duration.seconds(10) */
  readonly timeout?: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** What happens to the function's log group when the stack is deleted. @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

export type TableAccess = 'read' | 'readWrite';

/**
 * A Node.js 24 arm64 Lambda bundled locally by esbuild into one minified ESM file (AWS SDK included and
 * tree-shaken), with its own log group; permissions are granted only through the `bind*` methods.
 */
export class ServiceFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // Its own role instead of AWSLambdaBasicExecutionRole: logs:* on every log group is more than it needs.
    const role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(role);
    this.function = new NodejsFunction(this, 'Function', {
      entry: join(PROJECT_ROOT, props.entry),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(10),
      logGroup: this.logGroup,
      role,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
      bundling: {
        forceDockerBundling: false,
        format: OutputFormat.ESM,
        target: 'node24',
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_BANNER,
        // Bundle everything, the SDK included: a pinned, tree-shaken SDK beats the runtime's on cold start.
        externalModules: [],
        minify: true,
        sourceMap: true,
        // Stack traces need only the mappings; embedding the sources would double the asset.
        sourcesContent: false,
      },
    });
  }

  /**
   * Lets the function make and unwrap data keys with `key`, only under the secrets' encryption context
   * (`workspaceId`, `secretId`, `version`: see shared/services/secrets.ts), and tells it the key's ARN.
   */
  bindSecretsKey(key: IKey): void {
    this.function.addEnvironment('KMS_KEY_ID', key.keyArn);
    this.function.addToRolePolicy(
      new PolicyStatement({
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [key.keyArn],
        conditions: {
          'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...SECRET_CONTEXT_KEYS] },
          Null: Object.fromEntries(SECRET_CONTEXT_KEYS.map((name) => [`kms:EncryptionContext:${name}`, 'false'])),
        },
      }),
    );
  }

  /** Grants the function the DynamoDB data actions that `access` names, on the table and its indexes only. */
  bindTable(table: Table, access: TableAccess): void {
    if (access === 'read') table.grantReadData(this.function);
    else table.grantReadWriteData(this.function);
    const tableId = Stack.of(table).getLogicalId(table.node.defaultChild as CfnTable);
    Validations.of(this).acknowledge({
      id: `AwsSolutions-IAM5[Resource::<${tableId}.Arn>/index/*]`,
      reason: 'The only wildcard is the index name: queries on the global secondary indexes of this one table.',
    });
  }
}
