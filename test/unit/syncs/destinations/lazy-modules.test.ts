import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/**
 * makeDestination loads a destination's module on first use (destinations/index.ts): a fresh Node process records
 * every module it resolves (module.registerHooks), so the test sees which destination libraries making one pulled in
 * (the DynamoDB client comes with the access feature's index, which the sync function loads anyway).
 */
function heavyModulesAfter(destination: object): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = new Set();
    registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); seen.add(result.url); return result; } });
    const { makeDestination } = await import('./shared/syncs/destinations/index.ts');
    const context = { workspaceId: 'ws_1', syncId: 'sync_1', token: 't', ownAccount: true, roleArns: [], allowPrivateCidrs: '' };
    await makeDestination(${JSON.stringify(destination)}, context);
    const heavy = [...seen].map((url) => /(@aws-sdk\\/client-(?:ssm|secrets-manager|sts)|libsodium-wrappers)\\//.exec(url)?.[1]).filter(Boolean);
    console.log(JSON.stringify([...new Set(heavy)].sort()));
  `;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as string[];
}

describe('each destination module is loaded only when a sync needs it', () => {
  it('a GitHub destination loads no AWS SDK client', () => {
    expect(heavyModulesAfter({ type: 'github-actions', repository: 'a/b' })).toEqual([]);
  });

  it('a Parameter Store destination loads its client and STS, not Secrets Manager or libsodium', () => {
    expect(heavyModulesAfter({ type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/p/' })).toEqual([
      '@aws-sdk/client-ssm',
      '@aws-sdk/client-sts',
    ]);
  });

  it('a Secrets Manager destination loads its client and STS, not SSM or libsodium', () => {
    const destination = { type: 'aws-secrets-manager', region: 'eu-west-1', namePrefix: 'p/' };
    expect(heavyModulesAfter(destination)).toEqual(['@aws-sdk/client-secrets-manager', '@aws-sdk/client-sts']);
  });
});
