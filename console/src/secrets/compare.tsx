import type { ComponentChildren } from 'preact';
import { useRoute } from 'preact-iso/router';
import type { SecretsClient } from '@secrets-service/sdk/client';
import { unwrap, useSession } from '../api.ts';
import { Empty, ErrorBox, Loading } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { pageQuery } from '../ui/paged.tsx';
import { listAll, type SecretItem } from './secrets-context.ts';
import { useTitle } from '../ui/title.ts';
import { CurrentVersion, versionWords } from './secrets-ui.tsx';

/** How two environments differ: keys only one has, and keys at different versions. Never a value. */
export interface Comparison {
  onlyA: SecretItem[];
  onlyB: SecretItem[];
  differ: { key: string; a: SecretItem; b: SecretItem }[];
  same: number;
}

/** Compares two key lists (each sorted or not) by key, then by current version. */
export function compareSecrets(a: SecretItem[], b: SecretItem[]): Comparison {
  const inB = new Map(b.map((s) => [s.key, s]));
  const inA = new Set(a.map((s) => s.key));
  const result: Comparison = { onlyA: [], onlyB: b.filter((s) => !inA.has(s.key)), differ: [], same: 0 };
  for (const secret of a) {
    const other = inB.get(secret.key);
    if (!other) result.onlyA.push(secret);
    else if (other.currentVersion !== secret.currentVersion) result.differ.push({ key: secret.key, a: secret, b: other });
    else result.same += 1;
  }
  return result;
}

/** Both environments (one request each: their names, and the project's slug) and both key lists, all at once. */
async function loadComparison(client: SecretsClient, a: string, b: string) {
  const environment = async (envId: string) =>
    unwrap(await client.api.GET('/api/v1/environments/{envId}', { params: { path: { envId } } }));
  const secretsOf = (envId: string) =>
    listAll(client, (cursor) =>
      client.api.GET('/api/v1/environments/{envId}/secrets', { params: { path: { envId }, query: pageQuery(cursor) } }),
    );
  const [envA, envB, left, right] = await Promise.all([environment(a), environment(b), secretsOf(a), secretsOf(b)]);
  return { envA, envB, comparison: compareSecrets(left, right) };
}

/** `/console/projects/{projectId}/compare?a=<envId>&b=<envId>`: what differs between two environments, by key and version. */
export function Compare() {
  const { params, query } = useRoute();
  const projectId = params.projectId ?? '';
  const a = query.a ?? '';
  const b = query.b ?? '';
  const { client } = useSession();
  const loaded = useLoaded(() => (a && b ? loadComparison(client, a, b) : Promise.resolve(undefined)), [a, b]);
  const { envA, envB, comparison } = loaded.value ?? {};
  const nameA = envA?.name ?? a;
  const nameB = envB?.name ?? b;
  useTitle('Compare', envA?.projectSlug, envA && envB ? `${envA.slug} ↔ ${envB.slug}` : undefined);
  return (
    <section>
      <nav class="crumbs" aria-label="Breadcrumbs">
        <a href="/console/projects">Projects</a> / <a href={`/console/projects/${projectId}`}>{envA?.projectSlug ?? 'Project'}</a> /
      </nav>
      <h1>Compare environments</h1>
      {(!a || !b) && <Empty>Pick two environments on the project's page.</Empty>}
      {loaded.loading && <Loading what="both environments" />}
      <ErrorBox error={loaded.error} />
      {comparison && (
        <>
          <p class="muted">
            <a href={`/console/environments/${a}`}>{nameA}</a> and <a href={`/console/environments/${b}`}>{nameB}</a>:{' '}
            {keys(comparison.same)} at the same version, {comparison.differ.length} at different versions,{' '}
            {comparison.onlyA.length + comparison.onlyB.length} in one only.
          </p>
          <KeyList title={`Only in ${nameA}`} secrets={comparison.onlyA} />
          <KeyList title={`Only in ${nameB}`} secrets={comparison.onlyB} />
          <Part title="Different versions" count={comparison.differ.length}>
            <table class="compare">
              <thead>
                <tr>
                  <th>Key</th>
                  <th>{nameA}</th>
                  <th>{nameB}</th>
                </tr>
              </thead>
              <tbody>
                {comparison.differ.map(({ key, a: left, b: right }) => (
                  <tr key={key}>
                    <td>
                      <code>{key}</code>
                    </td>
                    <td>
                      <a href={`/console/secrets/${left.id}`} aria-label={`${key} in ${nameA}: ${versionWords(left.currentVersion)}`}>
                        <CurrentVersion version={left.currentVersion} prefix="version " />
                      </a>
                    </td>
                    <td>
                      <a href={`/console/secrets/${right.id}`} aria-label={`${key} in ${nameB}: ${versionWords(right.currentVersion)}`}>
                        <CurrentVersion version={right.currentVersion} prefix="version " />
                      </a>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Part>
        </>
      )}
    </section>
  );
}

const keys = (n: number) => `${n} ${n === 1 ? 'key' : 'keys'}`;

function Part({ title, count, children }: { title: string; count: number; children: ComponentChildren }) {
  return (
    <section aria-label={title}>
      <h2>
        {title} ({count})
      </h2>
      {count === 0 ? <Empty>None.</Empty> : children}
    </section>
  );
}

function KeyList({ title, secrets }: { title: string; secrets: SecretItem[] }) {
  return (
    <Part title={title} count={secrets.length}>
      <ul class="keys">
        {secrets.map((secret) => (
          <li key={secret.id}>
            <a href={`/console/secrets/${secret.id}`}>
              <code>{secret.key}</code>
            </a>{' '}
            <span class="muted">
              <CurrentVersion version={secret.currentVersion} prefix="version " />
            </span>
          </li>
        ))}
      </ul>
    </Part>
  );
}
