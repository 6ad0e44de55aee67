import { makeSigV4Authenticator } from '../../shared/access/index.ts';
import { makeAwsHandler } from '../../shared/aws/aws-handler.ts';
import { makeBatchGetSecretValue } from '../../shared/aws/batch-get.ts';
import { makeListSecrets } from '../../shared/aws/list-secrets.ts';
import { getRandomPassword } from '../../shared/aws/random-password.ts';
import { makeSecretLookup } from '../../shared/aws/secret-lookup.ts';
import { makeSecretOperations } from '../../shared/aws/secret-operations.ts';
import { makeSecretWrites } from '../../shared/aws/secret-writes.ts';
import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { serviceMacsOnFirstUse } from '../../shared/platform/crypto/macs-on-first-use.ts';
import { logger } from '../../shared/platform/logger.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { deletedSecretServiceOf, errorName, secretServiceOf, secretsStore } from '../../shared/secrets/secret-wiring.ts';
import { makeWorkspaceStore } from '../../shared/workspaces/workspace-store.ts';

const { config, db, pager, clock } = runtime();
// The secrets store as the REST secrets group builds it (the same reveal limiter), and the signing keys' items.
const store = { ...makeWorkspaceStore(db), ...secretsStore(db, pager) };
// Values and the keys' secret halves: a warm container opens each data key once (5 minutes), each key's secret once
// (15 minutes), so a steady stream of signed reveals costs no more KMS than REST reveals.
const cipher = cipherOnFirstUse(config, 1000);
const secrets = secretServiceOf({ config, store, cipher, clock });
const deletedSecrets = deletedSecretServiceOf({ store, clock });
const lookup = makeSecretLookup(secrets, deletedSecrets, config.aws);

const authenticate = makeSigV4Authenticator({
  store,
  clock,
  cipher,
  // Temporary credentials: a session token's checksum and its derived key pair (one GetItem and one KMS Decrypt a container).
  macs: serviceMacsOnFirstUse(config, db),
  onTouchFailure: (error) => logger.warn('could not record lastUsedAt', { errorName: errorName(error) }),
});

/** Lambda entry of the AWS Secrets Manager API (`POST /`). */
export const handler = makeAwsHandler({
  authenticate,
  operations: {
    ...makeSecretOperations(secrets, lookup, config.aws),
    ...makeSecretWrites(secrets, deletedSecrets, lookup, config.aws),
    ListSecrets: makeListSecrets(secrets, config.aws),
    BatchGetSecretValue: makeBatchGetSecretValue(secrets, config.aws),
    GetRandomPassword: getRandomPassword,
  },
  region: config.aws.region,
  now: clock.now,
});
