import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import { serviceMacsOnFirstUse } from '../platform/crypto/macs-on-first-use.ts';
import { loadOnce } from '../platform/on-first-use.ts';
import type { Db } from '../platform/store/send.ts';
import { makeLoginService } from './login-service.ts';
import { makeLoginStore } from './login-store.ts';
import type { OidcKeyAuth } from './oidc-login.ts';
import { replayToSts } from './sts-replay.ts';

export type { LoginService } from './login-service.ts';
/** What the login's route accepts and answers. */
export { loginAnswer, loginBodySchema } from './login-schemas.ts';

/** The login's service, as its function (functions/auth) builds it once per container. */
export function loginServiceOf({ config, db, clock }: { config: Config; db: Db; clock: Clock }) {
  // The OIDC checks, with aws-jwt-verify and the SSRF guard, load on the first OIDC login: an IAM login never needs them.
  const oidcLogin = loadOnce(async () => {
    const [{ makeOidcLogin }, { parseAllowedCidrs }] = await Promise.all([import('./oidc-login.ts'), import('../net/ssrf.ts')]);
    return makeOidcLogin({ allowPrivateCidrs: parseAllowedCidrs(config.login.oidcAllowPrivateCidrs) });
  });
  return makeLoginService({
    store: makeLoginStore(db),
    clock,
    // The MAC key signs the checksum of each token issued; read and unsealed on the first good login.
    macs: serviceMacsOnFirstUse(config, db),
    iam: config.login,
    replayToSts,
    verifyOidc: async (auth: OidcKeyAuth, jwt: string) => (await oidcLogin())(auth, jwt),
  });
}
