import { describe, expect, it } from 'vitest';
import { makeDestination } from '../../../../shared/syncs/destinations/index.ts';
import { destinationContext } from '../support.ts';

const context = destinationContext({ token: 't', ownAccount: true });

describe('makeDestination (destinations/index.ts)', () => {
  it("picks the module of the configuration's type", async () => {
    const github = await makeDestination({ type: 'github-actions', repository: 'a/b' }, context);
    const ssm = await makeDestination({ type: 'aws-ssm', region: 'eu-west-1', pathPrefix: '/p/' }, context);
    const perKey = await makeDestination({ type: 'aws-secrets-manager', region: 'eu-west-1', namePrefix: 'p/' }, context);
    const json = await makeDestination({ type: 'aws-secrets-manager', region: 'eu-west-1', namePrefix: 'p', mode: 'json' }, context);
    expect([github, ssm, perKey, json].map((destination) => destination.wholeEnvironment)).toEqual([false, false, false, true]);
    await expect(makeDestination({ type: 'github-actions', repository: 'a/b' }, { ...context, token: undefined })).rejects.toThrow(
      'GitHub: the sync has no token',
    );
  });
});
