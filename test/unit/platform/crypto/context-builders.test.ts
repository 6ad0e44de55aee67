import { describe, expect, it } from 'vitest';
import {
  SECRET_VALUE_CONTEXT,
  secretContext,
  SIGNING_SECRET_CONTEXT,
  signingSecretContext,
} from '../../../../shared/platform/crypto/context.ts';

describe('encryption contexts', () => {
  it('bind a secret value to its workspace, secret and version, with exactly the keys the IAM grant names', () => {
    // Act
    const context = secretContext('ws_1', 'sec_1', 3);

    // Assess
    expect(context).toEqual({ workspaceId: 'ws_1', secretId: 'sec_1', version: '3' });
    expect(Object.keys(context).sort()).toEqual([...SECRET_VALUE_CONTEXT].sort());
  });

  it('bind a signing secret to its workspace and endpoint, with exactly the keys the IAM grant names', () => {
    // Act
    const context = signingSecretContext('ws_1', 'we_1');

    // Assess
    expect(context).toEqual({ workspaceId: 'ws_1', endpointId: 'we_1' });
    expect(Object.keys(context).sort()).toEqual([...SIGNING_SECRET_CONTEXT].sort());
  });
});
