import { join } from 'node:path';
import { AssetHashType, Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Code, Function as LambdaFunction, Runtime } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { bundleLambda, LAMBDA_NODE_OPTIONS, PROJECT_ROOT } from './lambda-bundle.ts';
import { allowStatements, denyStatements, type TableAccess } from './table-access.ts';

/** The name every function logs under (`SERVICE_NAME` in shared/platform/config.ts). */
export const SERVICE_NAME = 'secrets-service';

/** What a function may do with a KMS key: the actions, only under an encryption context with exactly these keys. */
export interface KeyAccess {
  readonly actions: readonly ('kms:GenerateDataKey' | 'kms:Decrypt')[];
  readonly contextKeys: readonly string[];
  /** The values some of those keys must have (one of the listed: a purpose, say). @default any value */
  readonly contextValues?: Readonly<Record<string, string | readonly string[]>>;
}

export interface ServiceFunctionProps {
  /** Handler module relative to the project root, exporting `handler`. */
  readonly entry: string;
  readonly environment?: Record<string, string>;
  /** Concurrency set aside for this function alone (none by default: it shares the account's pool). */
  readonly reservedConcurrentExecutions?: number;
  /** From the function list (shared/platform/functions.ts). */
  readonly memorySize: number;
  /** From the function list (shared/platform/functions.ts). */
  readonly timeout: Duration;
  /** @default RetentionDays.ONE_MONTH */
  readonly logRetention?: RetentionDays;
  /** What happens to the function's log group when the stack is deleted. @default RemovalPolicy.RETAIN */
  readonly logRemovalPolicy?: RemovalPolicy;
}

/**
 * A Node.js 24 arm64 Lambda bundled locally by esbuild (lib/lambda-bundle.ts: minified ESM, AWS SDK included and
 * tree-shaken, what loads later in chunks of its own), with its own role and log group; permissions are granted only through the `bind*` methods, each of
 * which also tells the function what it bound (table name, key id).
 */
export class ServiceFunction extends Construct {
  readonly function: LambdaFunction;
  readonly logGroup: LogGroup;
  readonly role: Role;

  constructor(scope: Construct, id: string, props: ServiceFunctionProps) {
    super(scope, id);
    this.logGroup = new LogGroup(this, 'LogGroup', {
      retention: props.logRetention ?? RetentionDays.ONE_MONTH,
      removalPolicy: props.logRemovalPolicy ?? RemovalPolicy.RETAIN,
    });
    // Its own role instead of AWSLambdaBasicExecutionRole: logs:* on every log group is more than it needs.
    this.role = new Role(this, 'Role', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    this.logGroup.grantWrite(this.role);
    this.function = new LambdaFunction(this, 'Function', {
      code: bundledCode(props.entry),
      handler: 'index.handler',
      runtime: Runtime.NODEJS_24_X,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize,
      ...(props.reservedConcurrentExecutions !== undefined && { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      timeout: props.timeout,
      logGroup: this.logGroup,
      role: this.role,
      environment: {
        ...(LAMBDA_NODE_OPTIONS ? { NODE_OPTIONS: LAMBDA_NODE_OPTIONS } : {}),
        SERVICE_NAME,
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        ...props.environment,
      },
    });
  }

  /**
   * Grants exactly what `access` lists (lib/table-access.ts `allowStatements`: every statement conditioned on the
   * partition keys it may reach, indexes by name, no wildcard), and tells the function the table's name (`TABLE_NAME`).
   */
  bindTable(table: ITable, access: TableAccess): void {
    this.function.addEnvironment('TABLE_NAME', table.tableName);
    for (const statement of allowStatements(table, access)) this.function.addToRolePolicy(statement);
  }

  /**
   * Lets the function use `key` for `access.actions`, only when the request's encryption context has exactly the
   * keys `access.contextKeys` (no fewer: each must be present; no more: ForAllValues) and, for the keys
   * `access.contextValues` names, one of the values it lists; and tells it the key's ARN (`KMS_KEY_ID`). KMS
   * evaluates these condition keys for GenerateDataKey and Decrypt alike.
   *
   * Two locks, both from the same `KeyAccess` (the tables of lib/access.ts), so they cannot drift: the role's IAM
   * statement, and a key-policy statement that allows the same actions and context to the account only when the
   * caller is this role (`aws:PrincipalArn`). The account otherwise only administers the key (lib/encryption.ts), so
   * no other principal's IAM policy reaches further. The key policy names the role in a condition, not as its
   * `Principal`, on purpose: KMS refuses a key policy whose principals it cannot see yet ("Policy contains a
   * statement with one or more invalid principals"), and a role CloudFormation created seconds before the key may
   * not be visible to KMS yet (the KMS API reference asks for a delay), which would fail a first deploy at random. A
   * condition value is never looked up. No cycle either: the key policy reads the role's ARN, the role's policy (a
   * separate AWS::IAM::Policy) the key's ARN, and the role itself nothing of the key.
   */
  bindKey(key: IKey, access: KeyAccess): void {
    this.function.addEnvironment('KMS_KEY_ID', key.keyArn);
    const values = Object.entries(access.contextValues ?? {});
    const conditions = {
      'ForAllValues:StringEquals': { 'kms:EncryptionContextKeys': [...access.contextKeys] },
      Null: Object.fromEntries(access.contextKeys.map((name) => [`kms:EncryptionContext:${name}`, 'false'])),
      ...(values.length > 0 && {
        StringEquals: Object.fromEntries(values.map(([name, value]) => [`kms:EncryptionContext:${name}`, [value].flat()])),
      }),
    };
    this.function.addToRolePolicy(new PolicyStatement({ actions: [...access.actions], resources: [key.keyArn], conditions }));
    key.addToResourcePolicy(
      new PolicyStatement({
        // One statement per use (a function may use the key under two contexts); Sids stay unique in the policy.
        sid: `UseBy${this.node.id}${access.contextKeys.map((name) => name[0]!.toUpperCase() + name.slice(1)).join('')}`,
        principals: [new AccountRootPrincipal()],
        actions: [...access.actions],
        resources: ['*'],
        conditions: { ...conditions, ArnEquals: { 'aws:PrincipalArn': this.role.roleArn } },
      }),
    );
  }

  /**
   * The table's Denies (lib/table-access.ts `denyStatements`), carried by every role with table access or not, so
   * a grant added later cannot forget them: audit entries are never changed or removed, the MAC key never written,
   * and only the roles `access` marks may put audit entries or create credential items.
   */
  denyTableChanges(table: ITable, access: TableAccess | undefined): void {
    for (const statement of denyStatements(table, access)) this.function.addToRolePolicy(statement);
  }
}

/** Construct ids from kebab-case names: `webhook-fanout` → `WebhookFanout`. */
export function pascalCase(name: string): string {
  return name.replace(/(^|-)([a-z0-9])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}

/**
 * The function's code, bundled by the local esbuild as lib/lambda-bundle.ts says. NodejsFunction cannot split a
 * bundle into chunks (it names one output file), so the asset is bundled here; the asset's hash is that of the
 * output, as NodejsFunction's is. The Docker image is never used: local bundling always succeeds or throws.
 */
function bundledCode(entry: string): Code {
  return Code.fromAsset(PROJECT_ROOT, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      image: Runtime.NODEJS_24_X.bundlingImage,
      // CDK's staging cache keys an asset on its source path and bundling options, not on the local bundler, so the
      // entry is named here: without it every function of a synth would get the first one's code.
      environment: { LAMBDA_ENTRY: entry },
      local: {
        tryBundle(outputDir: string): boolean {
          bundleLambda(join(PROJECT_ROOT, entry), outputDir);
          return true;
        },
      },
    },
  });
}
