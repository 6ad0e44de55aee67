import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso/router';
import { clientFor, refusalOfToken, SessionContext, type Session } from './api.ts';
import { loadConfig, type ConsoleConfig } from './config.ts';
import { credentialOf, renew, sessionEpoch, signIn, signOut, storedToken, type RefreshGrant } from './session.ts';
import { SignIn } from './shell/sign-in.tsx';
import { Layout } from './shell/layout.tsx';
import { Projects } from './secrets/projects.tsx';
import { Project } from './secrets/project.tsx';
import { Environment } from './secrets/environment.tsx';
import { Compare } from './secrets/compare.tsx';
import { Secret } from './secrets/secret.tsx';
import { Search } from './secrets/search.tsx';
import { Audit } from './audit/audit.tsx';
import { AccessKeys } from './access/access-keys.tsx';
import { Webhooks } from './webhooks/webhooks.tsx';
import { Webhook } from './webhooks/webhook.tsx';
import { ChangeRequests } from './change-requests/change-requests.tsx';
import { ChangeRequest } from './change-requests/change-request.tsx';
import { Syncs } from './syncs/syncs.tsx';
import { Sync } from './syncs/sync.tsx';
import { AuditStreams } from './audit-streams/audit-streams.tsx';
import { AuditStream } from './audit-streams/audit-stream.tsx';
import { completeIdpSignIn, keepIdpSessionFresh } from './oidc.ts';
import { useTitle } from './ui/title.ts';
import './styles.css';

/** `/console/` and anything unknown under it: the projects. */
function Home() {
  const { route } = useLocation();
  useEffect(() => route('/console/projects', true), []);
  return null;
}

function NotFound() {
  useTitle('Not found');
  return (
    <section>
      <h1>Not found</h1>
      <p>
        Nothing is at this address. <a href="/console/projects">Projects</a>
      </p>
    </section>
  );
}

/** The routes of decisions.md ("Console"), each an address a person can bookmark. */
function Routes() {
  return (
    <Router>
      <Route path="/console" component={Home} />
      <Route path="/console/" component={Home} />
      <Route path="/console/projects" component={Projects} />
      <Route path="/console/projects/:projectId" component={Project} />
      <Route path="/console/projects/:projectId/compare" component={Compare} />
      <Route path="/console/environments/:envId" component={Environment} />
      <Route path="/console/environments/:envId/change-requests" component={ChangeRequests} />
      <Route path="/console/change-requests/:id" component={ChangeRequest} />
      <Route path="/console/secrets/:secretId" component={Secret} />
      <Route path="/console/search" component={Search} />
      <Route path="/console/audit" component={Audit} />
      <Route path="/console/access-keys" component={AccessKeys} />
      <Route path="/console/webhooks" component={Webhooks} />
      <Route path="/console/webhooks/:endpointId" component={Webhook} />
      <Route path="/console/syncs" component={Syncs} />
      <Route path="/console/syncs/:syncId" component={Sync} />
      <Route path="/console/audit-streams" component={AuditStreams} />
      <Route path="/console/audit-streams/:streamId" component={AuditStream} />
      <Route default component={NotFound} />
    </Router>
  );
}

/**
 * Signed in or not. A token is kept only once the API has taken it; when the API refuses one, at sign-in or later in
 * the session (revoked, expired), the person is back at sign-in with the API's code and message, and the token is
 * forgotten (decisions.md, "Console" and "Hardening v1.3"). A sign-in with the identity provider that came with a
 * refresh token is renewed before its access token expires: every request reads the session's token as it is then,
 * so the views never notice.
 */
function App({ config }: { config: ConsoleConfig }) {
  const [token, setToken] = useState<string | null>(storedToken());
  const [refusal, setRefusal] = useState<unknown>(null);
  const end = (reason: unknown) => (signOut(), setToken(null), setRefusal(reason));
  const begin = async (candidate: string, refresh: RefreshGrant | null = null) => {
    setRefusal(null);
    const refused = await refusalOfToken(config, candidate);
    if (refused) return setRefusal(refused);
    signIn(candidate, refresh);
    setToken(candidate);
  };
  const session = useMemo<Session | null>(() => {
    if (!token) return null;
    // A 401 of a request this session sent ends it, unless another session has begun since.
    const epoch = sessionEpoch();
    const refused = (reason: unknown) => sessionEpoch() === epoch && end(reason);
    const current = () => storedToken() ?? token;
    return { client: clientFor(config, current, refused), config, credential: credentialOf(token, config), signOut: () => end(null) };
  }, [token]);
  useEffect(() => {
    // Back from the identity provider: the code is exchanged for a token, then the address is cleaned of it.
    void completeIdpSignIn(config).then((received) => (received ? begin(received.accessToken, received.refresh) : undefined));
  }, []);
  useEffect(() => {
    if (!token) return undefined;
    return keepIdpSessionFresh(config, {
      renewed: (tokens) => renew(tokens.accessToken, tokens.refresh),
      // The provider refused the refresh token: the access token serves until the API refuses it.
      refused: () => renew(storedToken() ?? token, null),
    });
  }, [token]);
  if (!session) return <SignIn config={config} refusal={refusal} onToken={begin} />;
  return (
    <SessionContext.Provider value={session}>
      <Layout>
        <Routes />
      </Layout>
    </SessionContext.Provider>
  );
}

async function start() {
  const root = document.getElementById('app')!;
  try {
    const config = await loadConfig();
    render(
      <LocationProvider>
        <App config={config} />
      </LocationProvider>,
      root,
    );
  } catch (error) {
    root.textContent = error instanceof Error ? error.message : String(error);
  }
}

void start();
