import { describe, expect, it } from 'vitest';
import { ourBill, secretsManagerBill } from '../../bench/workload.ts';

/** The reference workload's two bills (bench/workload.ts): the arithmetic, line by line, at 1× and 10×. */
describe('reference workload', () => {
  const fixed = { kmsKeys: 1, dashboards: 1, alarms: 17, metricFilters: 3, logRetentionDays: 30 };
  const costs = { revealPerMillion: 2.25, loadPagePerMillion: 21, deliveryPerMillion: 4 };

  it('prices AWS Secrets Manager: $0.40 a secret, $0.05 per 10,000 calls, 20 secrets per BatchGetSecretValue', () => {
    const bill = secretsManagerBill(1);
    expect(bill.map((line) => line.usd)).toEqual([80, 5, 0.2, 0.01]);
    expect(secretsManagerBill(10).map((line) => line.usd)).toEqual([800, 50, 2, 0.1]);
  });

  it('prices our stack from the measured operation costs and what the template deploys', () => {
    const bill = ourBill(costs, fixed, 1);
    const usd = (prefix: string) => bill.find((line) => line.item.includes(prefix))!.usd;
    expect(usd('reveals')).toBe(2.25);
    expect(usd('environment loads')).toBe(0.42);
    expect(usd('webhook deliveries')).toBe(0.2);
    expect(usd('KMS key')).toBe(1);
    expect(usd('dashboard')).toBe(3);
    expect(usd('alarms')).toBe(1.7);
    expect(usd('custom metrics')).toBe(1.8);
    // Variable lines grow with the workload, fixed ones do not.
    const tenfold = ourBill(costs, fixed, 10);
    expect(tenfold.find((line) => line.item.includes('reveals'))!.usd).toBe(22.5);
    expect(tenfold.find((line) => line.item.includes('dashboard'))!.usd).toBe(3);
  });
});
