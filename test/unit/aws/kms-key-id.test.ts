import { describe, expect, it } from 'vitest';
import { checkKmsKeyId, ownKeyNames } from '../../../shared/aws/kms-key-id.ts';

const KEY_ARN = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('the KmsKeyId the AWS API accepts (decisions.md v1.4)', () => {
  it("names the stack's key by its ARN, id, alias or alias ARN, or AWS's default key", () => {
    const names = ownKeyNames({ keyArn: KEY_ARN, alias: 'alias/prod-secrets' });
    expect(names.sort()).toEqual(
      [
        'alias/aws/secretsmanager',
        KEY_ARN,
        '1234abcd-12ab-34cd-56ef-1234567890ab',
        'alias/prod-secrets',
        'arn:aws:kms:eu-west-1:123456789012:alias/prod-secrets',
      ].sort(),
    );
    for (const name of names) expect(() => checkKmsKeyId(name, names)).not.toThrow();
    expect(() => checkKmsKeyId(undefined, names)).not.toThrow();
  });

  it('refuses any other key, naming the field (InvalidParameterException)', () => {
    const names = ownKeyNames({ keyArn: KEY_ARN, alias: 'alias/prod-secrets' });
    for (const other of ['alias/other', 'arn:aws:kms:eu-west-1:123456789012:key/ffff', 'alias/aws/ssm', 'ALIAS/AWS/SECRETSMANAGER'])
      expect(() => checkKmsKeyId(other, names)).toThrow(expect.objectContaining({ type: 'InvalidParameterException' }));
  });

  it('accepts only AWS default key where the stack has no KMS key (the local keyring)', () => {
    expect(ownKeyNames({ keyArn: undefined, alias: undefined })).toEqual(['alias/aws/secretsmanager']);
  });
});
