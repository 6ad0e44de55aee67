import type { ComponentChildren } from 'preact';
import { useSession } from '../api.ts';

/** The frame of every page: the sections a person may use, and `Sign out`. */
export function Layout({ children }: { children: ComponentChildren }) {
  const { credential, signOut } = useSession();
  const admin = credential.offers.admin;
  return (
    <>
      <header class="top">
        <a class="brand" href="/console/projects">
          Secrets
        </a>
        <nav aria-label="Sections">
          <a href="/console/projects">Projects</a>
          <a href="/console/search">Search</a>
          {admin && <a href="/console/audit">Audit log</a>}
          {admin && <a href="/console/access-keys">Access keys</a>}
          {admin && <a href="/console/webhooks">Webhooks</a>}
          {admin && <a href="/console/syncs">Syncs</a>}
          {admin && <a href="/console/audit-streams">Audit streams</a>}
        </nav>
        <span class="role">{credential.label}</span>
        <button type="button" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main>{children}</main>
    </>
  );
}
