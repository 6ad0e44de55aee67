import { mkdirSync } from 'node:fs';
import { startFauxqs, type FauxqsServer } from 'fauxqs';
import { DELIVERY_QUEUE } from '../../shared/platform/functions.ts';

/** Name of the local delivery queue. */
export const LOCAL_DELIVERY_QUEUE = 'webhook-deliveries';
/** Name of its dead-letter queue. */
export const LOCAL_DELIVERY_DLQ = 'webhook-deliveries-dlq';
/** The region of every local ARN (fauxqs puts it in queue ARNs and URLs; the SDK clients sign with it). */
export const LOCAL_SQS_REGION = 'local';

/** How the local SQS starts; the defaults mirror the deployed queue. */
export interface LocalSqsOptions {
  /** Port of the emulator (default: any free port). */
  port?: number;
  /** Keep queues and messages in SQLite under this directory across restarts (default: in memory). */
  dataDir?: string | null;
  /** Seconds a received message stays invisible (default: the deployed queue's, shared/platform/functions.ts). */
  visibilityTimeoutSeconds?: number;
  /** Receives after which SQS moves a message to the DLQ (default: the deployed queue's). */
  maxReceiveCount?: number;
}

/** The running emulator and its two queues. */
export interface LocalSqs {
  endpoint: string;
  region: string;
  queueUrl: string;
  queueArn: string;
  dlqUrl: string;
  dlqArn: string;
  /** The emulator itself, for inspection (`inspectQueue`) in tests. */
  server: FauxqsServer;
  stop(): Promise<void>;
}

/**
 * The local SQS: fauxqs in this process, with the delivery queue and its dead-letter queue. fauxqs applies the
 * RedrivePolicy itself (a message received more than `maxReceiveCount` times moves to the DLQ on the next receive,
 * as in SQS), so the poller needs no redrive of its own. Existing queues in `dataDir` are kept as they are.
 */
export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
  const server = await startFauxqs({
    port: options.port ?? 0,
    logger: false,
    defaultRegion: LOCAL_SQS_REGION,
    ...(options.dataDir ? { dataDir: options.dataDir } : {}),
  });
  try {
    const { queues } = server.setup({ queues: [{ name: LOCAL_DELIVERY_DLQ, attributes: { MessageRetentionPeriod: '1209600' } }] });
    const dlq = queues[0]!;
    const redrivePolicy = JSON.stringify({
      deadLetterTargetArn: dlq.arn,
      maxReceiveCount: String(options.maxReceiveCount ?? DELIVERY_QUEUE.maxReceiveCount),
    });
    const attributes = {
      VisibilityTimeout: String(options.visibilityTimeoutSeconds ?? DELIVERY_QUEUE.visibilityTimeoutSeconds),
      RedrivePolicy: redrivePolicy,
    };
    const queue = server.setup({ queues: [{ name: LOCAL_DELIVERY_QUEUE, attributes }] }).queues[0]!;
    return {
      endpoint: server.address,
      region: LOCAL_SQS_REGION,
      queueUrl: queue.url,
      queueArn: queue.arn,
      dlqUrl: dlq.url,
      dlqArn: dlq.arn,
      server,
      stop: () => server.stop(),
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
