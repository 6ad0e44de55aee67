import { makeSigV4Authenticator } from '../../shared/access/index.ts';
import { makeAwsHandler, makeGetSecretValue, type LazyOperation } from '../../shared/aws/index.ts';
import { cipherOnFirstUse } from '../../shared/platform/crypto/cipher-on-first-use.ts';
import { serviceMacsOnFirstUse } from '../../shared/platform/crypto/macs-on-first-use.ts';
import { logger } from '../../shared/platform/logger.ts';
import { loadOnce } from '../../shared/platform/on-first-use.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { composeStores } from '../../shared/platform/store/compose.ts';
import { errorName, makeRevealLimiter, revealStore, secretRevealsOf } from '../../shared/secrets/index.ts';
import { makeWorkspaceStore } from '../../shared/workspaces/index.ts';
import { LATER_OPERATIONS } from './later-operations.ts';

const { config, db, pager, clock } = runtime();
// One limiter for GetSecretValue and the operations loaded later (BatchGetSecretValue): the same rate-limit leases.
const limiter = makeRevealLimiter(db);
const store = composeStores(makeWorkspaceStore(db), revealStore(db, pager, limiter));
// Values and the keys' secret halves: a warm container opens each data key once (5 minutes), each key's secret once
// (15 minutes), so a steady stream of signed reveals costs no more KMS than REST reveals.
const cipher = cipherOnFirstUse(config, 1000);
const reveals = secretRevealsOf({ config, store, cipher, clock });

// Every operation but GetSecretValue, built once per container on the first call of one (a chunk of its own).
const more = loadOnce(async () => (await import('./more-operations.ts')).moreOperations({ config, db, pager, clock, cipher, limiter }));

const later = Object.fromEntries(
  LATER_OPERATIONS.map((name): [string, LazyOperation] => [
    name,
    {
      load: async () => {
        const operation = (await more()).operations[name];
        if (!operation) throw new Error(`Invalid configuration: more-operations.ts has no ${name}`);
        return operation;
      },
    },
  ]),
);

const authenticate = makeSigV4Authenticator({
  store,
  clock,
  cipher,
  // Temporary credentials: a session token's checksum and its derived key pair (one GetItem and one KMS Decrypt a container).
  macs: serviceMacsOnFirstUse(config, db),
  onTouchFailure: (error) => logger.warn('could not record lastUsedAt', { errorName: errorName(error) }),
});

/** Lambda entry of the AWS Secrets Manager API and STS's GetCallerIdentity (`POST /`). */
export const handler = makeAwsHandler({
  authenticate,
  operations: {
    // A GetSecretValue of a deleted secret's name is InvalidRequestException: telling so loads the lookups.
    GetSecretValue: makeGetSecretValue(
      reveals,
      async (principal, id, error) => (await more()).lookup.missed(principal, id, error),
      config.aws,
    ),
    ...later,
  },
  region: config.aws.region,
  account: config.aws.account,
  now: clock.now,
});
