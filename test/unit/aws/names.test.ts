import { describe, expect, it } from 'vitest';
import { matchesReference, parseSecretId } from '../../../shared/aws/names.ts';
import { arnSuffix, derivedVersionId, secretArn, stagesOf, versionOfDerivedId } from '../../../shared/secrets/index.ts';

const PLACE = { region: 'us-east-1', account: '000000000000' };
const SECRET = { id: 'sec_01JABCDEFGHJKMNPQRSTVWXYZ0', projectSlug: 'payments-api', envSlug: 'production', key: 'DB_URL' };

describe('AWS names of a secret', () => {
  it('an ARN of the stack, the name and a suffix of six letters and digits fixed for the secret', () => {
    const arn = secretArn(PLACE, SECRET);
    expect(arn).toMatch(/^arn:aws:secretsmanager:us-east-1:000000000000:secret:payments-api\/production\/DB_URL-[A-Za-z0-9]{6}$/);
    expect(arnSuffix(SECRET.id)).toBe(arnSuffix(SECRET.id));
    expect(arnSuffix('sec_01JABCDEFGHJKMNPQRSTVWXYZ1')).not.toBe(arnSuffix(SECRET.id));
  });

  it('reads a SecretId as a name, a whole ARN (then as a partial one), or a partial ARN; another place names nothing', () => {
    const arn = secretArn(PLACE, SECRET);
    expect(parseSecretId('payments-api/production/DB_URL', PLACE)).toEqual([{ name: 'payments-api/production/DB_URL' }]);
    expect(parseSecretId(arn, PLACE)).toEqual([
      { name: 'payments-api/production/DB_URL', suffix: arnSuffix(SECRET.id) },
      { name: `payments-api/production/DB_URL-${arnSuffix(SECRET.id)}` },
    ]);
    expect(parseSecretId(arn.slice(0, -7), PLACE)).toEqual([{ name: 'payments-api/production/DB_URL' }]);
    expect(parseSecretId(arn.replace('us-east-1', 'eu-west-1'), PLACE)).toEqual([]);
    expect(parseSecretId(arn.replace('000000000000', '123456789012'), PLACE)).toEqual([]);
    expect(parseSecretId('arn:aws:ssm:us-east-1:000000000000:parameter/x', PLACE)).toEqual([]);
    // A key that itself ends in six letters and digits after a dash is found through the second reading.
    expect(parseSecretId('arn:aws:secretsmanager:us-east-1:000000000000:secret:a/b/KEY-ABCDEF', PLACE)).toEqual([
      { name: 'a/b/KEY', suffix: 'ABCDEF' },
      { name: 'a/b/KEY-ABCDEF' },
    ]);
  });

  it("a whole ARN names its secret only with that secret's suffix", () => {
    expect(matchesReference({ name: 'x', suffix: arnSuffix(SECRET.id) }, SECRET.id)).toBe(true);
    expect(matchesReference({ name: 'x', suffix: 'zzzzzz' }, SECRET.id)).toBe(false);
    expect(matchesReference({ name: 'x' }, SECRET.id)).toBe(true);
  });

  it("derives a VersionId per secret and number, reads the number back, and refuses another secret's or a forged one", () => {
    const id = derivedVersionId(SECRET.id, 7);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-000000000007$/);
    expect(versionOfDerivedId(SECRET.id, id)).toBe(7);
    expect(versionOfDerivedId('sec_01JABCDEFGHJKMNPQRSTVWXYZ1', id)).toBeUndefined();
    expect(versionOfDerivedId(SECRET.id, `${id.slice(0, -1)}8`)).toBeUndefined();
    expect(versionOfDerivedId(SECRET.id, 'not-a-version-id')).toBeUndefined();
    expect(derivedVersionId(SECRET.id, 1)).not.toBe(derivedVersionId(SECRET.id, 2));
  });

  it('stages of a head written before labels: AWSCURRENT on the current version, AWSPREVIOUS on the one before, none on older ones', () => {
    expect(stagesOf({ currentVersion: 5 }, 5)).toEqual(['AWSCURRENT']);
    expect(stagesOf({ currentVersion: 5 }, 4)).toEqual(['AWSPREVIOUS']);
    expect(stagesOf({ currentVersion: 5 }, 3)).toEqual([]);
  });
});
