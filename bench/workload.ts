import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ServiceStack } from '../lib/service-stack.ts';
import { PIPELINE_FUNCTIONS, SECRET_PURGER_FUNCTION } from '../shared/platform/functions.ts';
import { PRICES } from './prices.ts';

/**
 * The reference workload of the performance issue, priced per month for this stack and for AWS Secrets Manager, line
 * by line: 200 secrets; 1,000,000 single reveals; 20,000 cold starts each loading a 30-secret environment; 50,000
 * webhook deliveries. Our variable lines come from the bench's measured cost per operation; the fixed ones from the
 * synthesized stack itself (what it deploys: the KMS key, the dashboard, the alarms, the metrics, the log groups).
 */
export const WORKLOAD = { secrets: 200, reveals: 1_000_000, coldStarts: 20_000, secretsPerLoad: 30, deliveries: 50_000 } as const;

/**
 * Bytes of CloudWatch Logs per API request: the access log line (its JSON format in lib/api.ts, about 420 bytes with
 * values) and Lambda's START, END and REPORT lines (about 330 bytes); the handlers log nothing on success.
 */
const LOG_BYTES_PER_API_REQUEST = 750;
/** Per worker invocation: Lambda's three lines and the EMF metrics line (about 700 bytes). */
const LOG_BYTES_PER_WORKER_INVOCATION = 1030;
/** Bytes an audit entry takes in the table (measured: a reveal's entry is about 420 bytes; DynamoDB adds 100 per item). */
const AUDIT_ITEM_BYTES = 520;
/** Metrics a healthy month emits from the worker's EMF line: attempts, attempt latency, successes (service dimension). */
const EMF_METRICS_HEALTHY = 3;
/** Lambda's SQS event source polls an idle queue with about 5 long polls of 20 s at a time: 648,000 requests a month. */
const SQS_IDLE_POLLS = 5 * 3 * 60 * 24 * 30;
/** Hours in a month, as AWS prices by the month. */
const MONTH_SECONDS = 30 * 24 * 3600;

/** What the stack deploys that costs by the month, counted from its CloudFormation template. */
export function fixedResources() {
  const outdir = mkdtempSync(join(tmpdir(), 'bench-workload-'));
  try {
    const app = new App({ outdir, context: { 'aws:cdk:bundling-stacks': [] } });
    const template = Template.fromStack(new ServiceStack(app, 'SecretsService-bench'));
    const count = (type: string) => Object.keys(template.findResources(type)).length;
    const retention = Object.values(template.findResources('AWS::Logs::LogGroup')).map(
      (group) => group.Properties?.RetentionInDays as number | undefined,
    );
    return {
      kmsKeys: count('AWS::KMS::Key'),
      dashboards: count('AWS::CloudWatch::Dashboard'),
      alarms: count('AWS::CloudWatch::Alarm'),
      metricFilters: count('AWS::Logs::MetricFilter'),
      logRetentionDays: Math.max(...retention.map((days) => days ?? 30)),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Per-operation costs the bench measured ($ per million) and what a sweeper run costs. */
export interface MeasuredCosts {
  revealPerMillion: number;
  loadPagePerMillion: number;
  deliveryPerMillion: number;
}

type Line = { item: string; usd: number };
const money = (value: number) => Math.round(value * 100) / 100;

/** Our monthly bill for `scale` times the reference workload, line by line. */
export function ourBill(costs: MeasuredCosts, fixed: ReturnType<typeof fixedResources>, scale = 1): Line[] {
  const reveals = WORKLOAD.reveals * scale;
  const loads = WORKLOAD.coldStarts * scale;
  const deliveries = WORKLOAD.deliveries * scale;
  const apiRequests = reveals + loads;
  const auditEntries = reveals + loads * WORKLOAD.secretsPerLoad;
  const logGb = (apiRequests * LOG_BYTES_PER_API_REQUEST + (deliveries / 10) * LOG_BYTES_PER_WORKER_INVOCATION) / 1e9;
  const auditGb = (auditEntries * AUDIT_ITEM_BYTES) / 1e9;
  const sweeps = MONTH_SECONDS / 60 / PIPELINE_FUNCTIONS['delivery-sweeper'].intervalMinutes;
  // A sweep: one invocation of about 60 ms at 256 MB and eventually consistent Queries of the due-delivery shards and
  // the running recoveries (the figure from before the purge moved to its own function: an upper bound).
  const sweepUsd = sweeps * (PRICES.lambdaRequest + (256 / 1024) * 0.06 * PRICES.lambdaArmGbSecond + 9 * 0.5 * PRICES.dynamoReadUnit);
  // The purger's run with nothing due: one invocation of about 60 ms at 256 MB and one eventually consistent Query.
  const purges = MONTH_SECONDS / 60 / SECRET_PURGER_FUNCTION.intervalMinutes;
  const purgeUsd = purges * (PRICES.lambdaRequest + (256 / 1024) * 0.06 * PRICES.lambdaArmGbSecond + 0.5 * PRICES.dynamoReadUnit);
  return [
    {
      item: `${reveals.toLocaleString('en')} reveals (API Gateway, Lambda, DynamoDB, measured)`,
      usd: (reveals * costs.revealPerMillion) / 1e6,
    },
    {
      item: `${loads.toLocaleString('en')} environment loads of ${WORKLOAD.secretsPerLoad} secrets (one page each)`,
      usd: (loads * costs.loadPagePerMillion) / 1e6,
    },
    { item: `${deliveries.toLocaleString('en')} webhook deliveries`, usd: (deliveries * costs.deliveryPerMillion) / 1e6 },
    { item: `customer-managed KMS key × ${fixed.kmsKeys}`, usd: fixed.kmsKeys * PRICES.kmsKeyMonth },
    { item: `CloudWatch dashboard × ${fixed.dashboards}`, usd: fixed.dashboards * PRICES.dashboardMonth },
    { item: `CloudWatch alarms × ${fixed.alarms}`, usd: fixed.alarms * PRICES.alarmMonth },
    {
      item: `custom metrics: ${fixed.metricFilters} log metric filters + ${EMF_METRICS_HEALTHY} EMF metrics`,
      usd: (fixed.metricFilters + EMF_METRICS_HEALTHY) * PRICES.customMetricMonth,
    },
    {
      item: `CloudWatch Logs: ${money(logGb)} GB ingested, kept ${fixed.logRetentionDays} days`,
      usd: logGb * PRICES.logsIngestedGb + logGb * PRICES.logsStoredGbMonth * Math.min(1, fixed.logRetentionDays / 30),
    },
    {
      item: `audit log growth: ${money(auditGb)} GB this month (storage + point-in-time recovery, grows monthly)`,
      usd: (auditGb / 2) * (PRICES.dynamoStorageGbMonth + PRICES.dynamoPitrGbMonth),
    },
    { item: `delivery sweeper: ${Math.round(sweeps).toLocaleString('en')} runs`, usd: sweepUsd },
    { item: `secret purger: ${Math.round(purges).toLocaleString('en')} runs`, usd: purgeUsd },
    { item: 'SQS event source polling an idle queue', usd: SQS_IDLE_POLLS * PRICES.sqsRequest },
  ].map((line) => ({ ...line, usd: money(line.usd) }));
}

/** AWS Secrets Manager's monthly bill for the same workload, line by line. */
export function secretsManagerBill(scale = 1): Line[] {
  const batchCalls = WORKLOAD.coldStarts * scale * Math.ceil(WORKLOAD.secretsPerLoad / PRICES.secretsManagerBatchSize);
  return [
    {
      item: `${(WORKLOAD.secrets * scale).toLocaleString('en')} secrets × $0.40`,
      usd: WORKLOAD.secrets * scale * PRICES.secretsManagerSecretMonth,
    },
    {
      item: `${(WORKLOAD.reveals * scale).toLocaleString('en')} GetSecretValue calls`,
      usd: WORKLOAD.reveals * scale * PRICES.secretsManagerCall,
    },
    { item: `${batchCalls.toLocaleString('en')} BatchGetSecretValue calls (20 secrets each)`, usd: batchCalls * PRICES.secretsManagerCall },
    {
      item: `${(WORKLOAD.deliveries * scale).toLocaleString('en')} change notifications to HTTPS (EventBridge API destinations)`,
      usd: WORKLOAD.deliveries * scale * PRICES.apiDestinationInvocation,
    },
  ].map((line) => ({ ...line, usd: money(line.usd) }));
}

/** Both bills at 1× and 10× the workload, their totals and the ratio. */
export function priceWorkload(costs: MeasuredCosts) {
  const fixed = fixedResources();
  const at = (scale: number) => {
    const ours = ourBill(costs, fixed, scale);
    const theirs = secretsManagerBill(scale);
    const ourMonthlyUsd = money(ours.reduce((sum, line) => sum + line.usd, 0));
    const secretsManagerMonthlyUsd = money(theirs.reduce((sum, line) => sum + line.usd, 0));
    return {
      ours,
      secretsManager: theirs,
      ourMonthlyUsd,
      secretsManagerMonthlyUsd,
      ratioVsSecretsManager: money(secretsManagerMonthlyUsd / ourMonthlyUsd),
    };
  };
  const one = at(1);
  return {
    ...WORKLOAD,
    fixed,
    ourMonthlyUsd: one.ourMonthlyUsd,
    secretsManagerMonthlyUsd: one.secretsManagerMonthlyUsd,
    ratioVsSecretsManager: one.ratioVsSecretsManager,
    x1: one,
    x10: at(10),
  };
}

/** The two bills as Markdown tables (README and bench output). */
export function workloadTable(workload: ReturnType<typeof priceWorkload>): string {
  const rows: string[] = [];
  for (const [label, bills] of [
    ['reference workload', workload.x1],
    ['10× the workload', workload.x10],
  ] as const) {
    rows.push('', `| ${label}: this stack | $/month | AWS Secrets Manager | $/month |`, '|---|---|---|---|');
    const n = Math.max(bills.ours.length, bills.secretsManager.length);
    for (let i = 0; i < n; i++) {
      const a = bills.ours[i];
      const b = bills.secretsManager[i];
      rows.push(`| ${a?.item ?? ''} | ${a ? a.usd.toFixed(2) : ''} | ${b?.item ?? ''} | ${b ? b.usd.toFixed(2) : ''} |`);
    }
    rows.push(
      `| **total** | **${bills.ourMonthlyUsd.toFixed(2)}** | **total** (${bills.ratioVsSecretsManager}× ours) | **${bills.secretsManagerMonthlyUsd.toFixed(2)}** |`,
    );
  }
  return rows.join('\n');
}
