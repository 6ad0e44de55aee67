import { serviceMacsOnFirstUse } from '../../shared/platform/crypto/macs-on-first-use.ts';
import type { OidcKeyAuth } from '../../shared/access/oidc-login.ts';
import { replayToSts } from '../../shared/access/sts-replay.ts';
import { makeRouteGroupHandler } from '../../shared/platform/http/handler.ts';
import { runtime } from '../../shared/platform/runtime.ts';
import { makeLoginService } from '../../shared/access/login-service.ts';
import { makeLoginStore } from '../../shared/access/login-store.ts';
import { loadOnce } from '../../shared/platform/on-first-use.ts';
import { makeAuthRoutes } from './routes.ts';

const { config, db, clock } = runtime();
// The MAC key signs the checksum of each token issued; read and unsealed on the first good login.
const macs = serviceMacsOnFirstUse(config, db);
// The OIDC checks, with aws-jwt-verify and the SSRF guard, load on the first OIDC login: an IAM login never needs them.
const oidcLogin = loadOnce(async () => {
  const [{ makeOidcLogin }, { parseAllowedCidrs }] = await Promise.all([
    import('../../shared/access/oidc-login.ts'),
    import('../../shared/net/ssrf.ts'),
  ]);
  return makeOidcLogin({ allowPrivateCidrs: parseAllowedCidrs(config.login.oidcAllowPrivateCidrs) });
});
const verifyOidc = async (auth: OidcKeyAuth, jwt: string) => (await oidcLogin())(auth, jwt);
const service = makeLoginService({ store: makeLoginStore(db), clock, macs, iam: config.login, replayToSts, verifyOidc });

/** Lambda entry of the auth route group: the one route a caller reaches without a token. */
export const handler = makeRouteGroupHandler(makeAuthRoutes(service), {});
