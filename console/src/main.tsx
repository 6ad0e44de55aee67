import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso/router';
import { clientFor, SessionContext, type Session } from './api.ts';
import { loadConfig, type ConsoleConfig } from './config.ts';
import { roleOf, signIn, signOut, storedToken } from './session.ts';
import { SignIn } from './views/sign-in.tsx';
import { Layout } from './views/layout.tsx';
import { Projects } from './views/projects.tsx';
import { Project } from './views/project.tsx';
import { Environment } from './views/environment.tsx';
import { Compare } from './views/compare.tsx';
import { Secret } from './views/secret.tsx';
import { Search } from './views/search.tsx';
import { Audit } from './views/audit.tsx';
import { AccessKeys } from './views/access-keys.tsx';
import { Webhooks } from './views/webhooks.tsx';
import { Webhook } from './views/webhook.tsx';
import { completeIdpSignIn } from './oidc.ts';
import './styles.css';

/** `/console/` and anything unknown under it: the projects. */
function Home() {
  const { route } = useLocation();
  useEffect(() => route('/console/projects', true), []);
  return null;
}

function NotFound() {
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
      <Route path="/console/secrets/:secretId" component={Secret} />
      <Route path="/console/search" component={Search} />
      <Route path="/console/audit" component={Audit} />
      <Route path="/console/access-keys" component={AccessKeys} />
      <Route path="/console/webhooks" component={Webhooks} />
      <Route path="/console/webhooks/:endpointId" component={Webhook} />
      <Route default component={NotFound} />
    </Router>
  );
}

function App({ config }: { config: ConsoleConfig }) {
  const [token, setToken] = useState<string | null>(storedToken());
  const session = useMemo<Session | null>(() => {
    if (!token) return null;
    return { client: clientFor(config, token), config, role: roleOf(token, config), signOut: () => (signOut(), setToken(null)) };
  }, [token]);
  useEffect(() => {
    // Back from the identity provider: the code is exchanged for a token, then the address is cleaned of it.
    void completeIdpSignIn(config).then((received) => received && (signIn(received), setToken(received)));
  }, []);
  if (!session) return <SignIn config={config} onToken={(value) => (signIn(value), setToken(value))} />;
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
