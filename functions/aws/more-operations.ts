import {
  getRandomPassword,
  makeBatchGetSecretValue,
  makeListSecrets,
  makeResourcePolicyOperations,
  makeRotationOperations,
  makeSecretLookup,
  makeSecretOperations,
  makeSecretWrites,
  ownKeyNames,
} from '../../shared/aws/operations.ts';
import type { AwsOperation } from '../../shared/aws/index.ts';
import type { Clock } from '../../shared/platform/clock.ts';
import type { Config } from '../../shared/platform/config.ts';
import type { Cipher } from '../../shared/platform/crypto/envelope.ts';
import type { Pager } from '../../shared/platform/store/pager.ts';
import type { Db } from '../../shared/platform/store/send.ts';
import type { RevealLimiter } from '../../shared/secrets/index.ts';
import { deletedSecretServiceOf, secretServiceOf, secretsStore } from '../../shared/secrets/secret-wiring.ts';
import { rotationServiceOf } from '../../shared/rotation/index.ts';

/**
 * The AWS API's operations other than GetSecretValue, loaded on the first call of one of them (handler.ts): their
 * code is a chunk a cold start does not read. Built once per container over the whole secrets service, with the
 * handler's cipher (its cached data keys) and reveal limiter (the same rate-limit leases as GetSecretValue). The
 * operations come through shared/aws/operations.ts, not index.ts: that file is in the cold start.
 */
export function moreOperations(deps: { config: Config; db: Db; pager: Pager; clock: Clock; cipher: Cipher; limiter: RevealLimiter }) {
  const { config, db, pager, clock, cipher, limiter } = deps;
  const store = secretsStore(db, pager, limiter);
  const secrets = secretServiceOf({ config, store, cipher, clock });
  const deletedSecrets = deletedSecretServiceOf({ store, clock });
  const rotations = rotationServiceOf({ config, store, secrets, clock });
  const lookup = makeSecretLookup(secrets, deletedSecrets, config.aws);
  const operations: Record<string, AwsOperation> = {
    ...makeSecretOperations(secrets, lookup, config.aws, rotations),
    ...makeSecretWrites(secrets, deletedSecrets, lookup, config.aws, ownKeyNames(config.keyNames)),
    ListSecrets: makeListSecrets(secrets, deletedSecrets, config.aws, rotations),
    BatchGetSecretValue: makeBatchGetSecretValue(secrets, config.aws),
    GetRandomPassword: getRandomPassword,
    ...makeRotationOperations(rotations, lookup, config.aws),
    ...makeResourcePolicyOperations(secrets, lookup, config.aws),
  };
  return { lookup, operations };
}
