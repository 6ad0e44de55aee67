import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { expect, inject } from 'vitest';
import type { ServiceFunction } from '../../lib/service-function.ts';
import { ServiceStack, type ServiceStackProps } from '../../lib/service-stack.ts';
import { PIPELINE_FUNCTIONS, type PipelineFunction } from '../../shared/platform/functions.ts';
import { ROUTE_GROUPS, type RouteGroup } from '../../shared/platform/routes.ts';

/** What the infra tests read from a template. */
export type Resource = {
  Type: string;
  Properties: Record<string, any>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
  Metadata?: Record<string, any>;
};
export type Statement = { Effect: string; Action: string[]; Resource: unknown; Condition?: unknown; Principal?: unknown; Sid?: string };

export const GROUPS = Object.keys(ROUTE_GROUPS) as RouteGroup[];
export const PIPELINE = Object.keys(PIPELINE_FUNCTIONS) as PipelineFunction[];
export type FunctionName =
  | RouteGroup
  | PipelineFunction
  | 'rotation'
  | 'secret-purger'
  | 'sync-worker'
  | 'audit-digester'
  | 'audit-stream-worker';
/**
 * Every function: the route groups, the webhook pipeline, the rotation runner (`rotation`), the secret purger, the sync
 * worker, the audit digester, the audit stream worker.
 */
export const FUNCTION_NAMES: readonly FunctionName[] = [
  ...GROUPS,
  ...PIPELINE,
  'rotation',
  'secret-purger',
  'sync-worker',
  'audit-digester',
  'audit-stream-worker',
];

/** Settings the local stack needs and the deployed stack must never set (STYLE.md, shared/platform/config.ts). */
export const LOCAL_ONLY_SETTINGS = [
  'WEBHOOK_ALLOW_PRIVATE_CIDRS',
  'WEBHOOK_TIME_SCALE',
  'SQS_ENDPOINT',
  'SCHEDULER_ENDPOINT',
  'DYNAMODB_ENDPOINT',
  'LOCAL_KEYRING_FILE',
  'OIDC_ALLOW_PRIVATE_CIDRS',
];

/** Skips esbuild for stacks whose assets a test never looks at. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

/** A temporary directory for one test file's cloud assemblies, removed by `cleanup`. */
export async function makeOutdir(prefix: string) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** The web console built once for the infra run (test/infra/global-setup.ts): the stack deploys it as bin/app.ts does. */
export function consoleDir(): string {
  return inject('consoleDir');
}

/** Synthesizes one ServiceStack (`SecretsService-test`), with the console as bin/app.ts builds it, into its own app under `outdir`. */
export function synth(outdir: string, props: ServiceStackProps = {}, context: Record<string, unknown> = NO_BUNDLING) {
  const app = new App({ outdir: join(outdir, String(Math.random()).slice(2)), context });
  const stack = new ServiceStack(app, 'SecretsService-test', { consoleDir: consoleDir(), ...props });
  return { app, stack, template: Template.fromStack(stack) };
}

/** Every function of the stack by its name: the route groups, the pipeline, the rotation runner, the purger, the workers, the digester. */
export function functionsOf(stack: ServiceStack): Record<FunctionName, ServiceFunction> {
  return {
    ...stack.api.functions,
    ...stack.delivery.functions,
    rotation: stack.rotation.runner,
    'secret-purger': stack.purge.purger,
    'sync-worker': stack.syncs.worker,
    'audit-digester': stack.auditDigests.digester,
    'audit-stream-worker': stack.auditStreams.worker,
  };
}

/** The template's logical id of a construct's CloudFormation resource. */
export function idOf(stack: ServiceStack, construct: IConstruct): string {
  return stack.getLogicalId((construct.node.defaultChild ?? construct) as CfnElement);
}

/** The secrets key (the stack's other KMS key signs audit digests: lib/audit-digests.ts). */
export function secretsKeyOf(template: Template, stack: ServiceStack): [string, Resource] {
  const id = idOf(stack, stack.encryption.key);
  return [id, template.findResources('AWS::KMS::Key')[id] as Resource];
}

export function only(template: Template, type: string): [string, Resource] {
  const entries = Object.entries(template.findResources(type));
  expect(entries).toHaveLength(1);
  return entries[0] as [string, Resource];
}

/** The statements of every policy attached to the function's role, each with its actions as a sorted array. */
export function statementsOf(template: Template, stack: ServiceStack, fn: ServiceFunction): Statement[] {
  const roleId = idOf(stack, fn.role);
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Resource[];
  return policies
    .filter((policy) => (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as (Omit<Statement, 'Action'> & { Action: string | string[] })[])
    .map((statement) => ({ ...statement, Action: [statement.Action].flat().sort() }));
}

/** Statements in a canonical order, so two sets compare with toEqual whatever order CDK rendered them in. */
export function canonical(statements: Statement[]): Statement[] {
  return statements
    .map((statement) => ({ ...statement, Action: [...statement.Action].sort() }))
    .sort((a, b) => stableJson(a).localeCompare(stableJson(b)));
}

/** JSON with every object's keys in sorted order, so two equal statements always give the same text. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}

/** A token as the dashboard body spells it once parsed: `<Id>` for a Ref, `<Id.Attr>` for a GetAtt. */
export function tokenText(value: unknown): string {
  const token = value as { Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (token.Ref) return `<${token.Ref}>`;
  if (token['Fn::GetAtt']) return `<${token['Fn::GetAtt'].join('.')}>`;
  throw new Error(`Unexpected token in a dashboard body: ${JSON.stringify(value)}`);
}

export type Widget = { type: string; width: number; height: number; properties: Record<string, any> };

/** The dashboard's body as JSON, its Refs and GetAtts written as `tokenText` does. */
export function dashboardBody(dashboard: Resource): { widgets: Widget[] } {
  const body = dashboard.Properties.DashboardBody as string | { 'Fn::Join': [string, unknown[]] };
  if (typeof body === 'string') return JSON.parse(body);
  return JSON.parse(body['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : tokenText(part))).join(''));
}
