// The operations the CPU bench's child (bench/cpu-child.ts) measures: each one's handler and its events.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { awsSubjects } from './cpu-aws.ts';
import { apiEvent } from './cpu-events.ts';
import type { Handler } from './cpu-passes.ts';
import { seedWorkspace } from './cpu-seed.ts';

/** Every operation the CPU bench can measure: REST's reveals and list, and the AWS API's two reads. */
export const OPERATIONS = ['revealById', 'listSecrets', 'revealByPath', 'awsGetSecretValue', 'awsBatchGetSecretValue'] as const;
export type Operation = (typeof OPERATIONS)[number];

/** One measured operation: the handler module's entry that answers it and the events it is called with. */
export interface Subject {
  handler: Handler;
  /**
   * Makes the events of the next `n` requests, before the loop that uses them starts its clock. A REST event needs
   * nothing ahead; an AWS one is signed here (SigV4 is the client's work, not the handler's), just before its pass,
   * as `X-Amz-Date` must be within 5 minutes of the handler's clock.
   */
  ready(n: number): Promise<void>;
  /** The next event made ready (called by the loops while they make their inputs, never while they are timed). */
  event(): APIGatewayProxyEventV2;
  /**
   * The share of the bench's request counts this operation runs: 1, or less for a call that does many secrets'
   * work (a batch of 20), so that its rounds last about as long as a reveal's.
   */
  share: number;
}

export interface SubjectOptions {
  /** Secrets in the listed environment (the page a list answers). */
  listSize: number;
  /** Secrets a BatchGetSecretValue asks for (in an environment of their own, "load"). */
  batchSecrets: number;
}

/**
 * Seeds the workspace (bench/cpu-seed.ts) and answers the subjects of `operations`. The reveals by id and by path
 * and GetSecretValue all reveal the same secret, DATABASE_URL of Bench/prod; the AWS API's key pair and the batch's
 * environment are made only when an AWS operation is measured.
 */
export async function subjectsOf(operations: readonly Operation[], options: SubjectOptions) {
  const ws = await seedWorkspace(options.listSize);
  const rest = (make: () => APIGatewayProxyEventV2): Subject => ({ handler: ws.handler, ready: async () => {}, event: make, share: 1 });
  const path = `${ws.project.slug}/${ws.environment.slug}/DATABASE_URL`;
  const subjects: Partial<Record<Operation, Subject>> = {
    revealById: rest(() => apiEvent('POST /api/v1/secrets/{secretId}/reveal', ws.apiKey, { pathParameters: { secretId: ws.secret.id } })),
    listSecrets: rest(() =>
      apiEvent('GET /api/v1/environments/{envId}/secrets', ws.apiKey, { pathParameters: { envId: ws.environment.id } }),
    ),
    revealByPath: rest(() => apiEvent('POST /api/v1/reveal', ws.apiKey, ws.withBody(ws.apiKey, { path }))),
  };
  if (operations.some((op) => op.startsWith('aws')))
    Object.assign(subjects, await awsSubjects(ws, { path, batchSecrets: options.batchSecrets }));
  return { doc: ws.doc, subjects: subjects as Record<Operation, Subject> };
}
