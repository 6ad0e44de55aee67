import { defineConfig } from 'vitest/config';

/**
 * `npm test` runs three projects: unit (no network, stubs and aws-sdk-client-mock), integration (the real local
 * stack: DynamoDB Local over HTTP behind the local API Gateway) and infra (CDK template assertions).
 */
export default defineConfig({
  test: {
    env: { POWERTOOLS_LOG_LEVEL: 'ERROR' },
    // Two test files at a time. By default vitest runs one fewer than the cores, one on this kind of 2-core machine,
    // and the integration files mostly wait on the local stack, a process of its own: one at a time took CI past 15
    // minutes.
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          env: { POWERTOOLS_LOG_LEVEL: 'ERROR' },
          // Unit files share the two workers with the integration files and the local stack's processes: a CLI test
          // that runs the command in-process took over the default 5 s once under that load (CI of c0e40f9).
          testTimeout: 15_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/browser/**/*.test.ts'],
          globalSetup: ['test/integration/global-setup.ts'],
          env: { POWERTOOLS_LOG_LEVEL: 'ERROR' },
          // A browser test of many steps took over 30 s once with the suite's load on two cores (CI of 7b24b11).
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          globalSetup: ['test/infra/global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
