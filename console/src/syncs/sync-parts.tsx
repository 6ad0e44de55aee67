import { useEffect, useState } from 'preact/hooks';
import type { paths } from '@secrets-service/sdk/client';
import { unwrap, useSession, type Session } from '../api.ts';

/** A sync as the API answers it (decisions.md v1.4, "Syncs"): its destination never carries a token. */
export type SyncItem = paths['/api/v1/syncs/{id}']['get']['responses'][200]['content']['application/json']['data'];
export type SyncStatusName = SyncItem['status'];

/** Where the console shows a sync. */
export const syncOf = (id: string) => `/console/syncs/${id}`;
/** The Syncs page: every sync of the workspace, or one environment's. */
export const syncsOf = (environmentId?: string) => `/console/syncs${environmentId ? `?environmentId=${environmentId}` : ''}`;
/** The Syncs page of one environment with the New sync form open. */
export const newSyncOf = (environmentId: string) => `${syncsOf(environmentId)}&new`;

/** A sync's status as a word with its own colour: `failing` stands out (decisions.md, "Syncs"). */
export function SyncStatus({ status }: { status: SyncStatusName }) {
  return <span class={`sync-status sync-${status}`}>{status}</span>;
}

/** The destination's type and where it writes: the repository (and its environment), or region and prefix. */
export function DestinationSummary({ destination }: { destination: SyncItem['destination'] }) {
  if (destination.type === 'github-actions') {
    return (
      <span>
        <span class="muted">GitHub Actions</span> <code>{destination.repository}</code>
        {destination.environment && (
          <span class="muted">
            {' '}
            environment <code>{destination.environment}</code>
          </span>
        )}
      </span>
    );
  }
  const label = destination.type === 'aws-ssm' ? 'Parameter Store' : 'Secrets Manager';
  const prefix = destination.type === 'aws-ssm' ? destination.pathPrefix : destination.namePrefix;
  const mode = destination.type === 'aws-secrets-manager' && destination.mode === 'json' ? ' (one JSON secret)' : '';
  return (
    <span>
      <span class="muted">{label}</span> <code>{destination.region}</code> <code>{prefix}</code>
      {mode && <span class="muted">{mode}</span>}
    </span>
  );
}

/** An environment's place as `project/environment`, or its id until (or unless) the API names it. */
export interface EnvironmentPlace {
  id: string;
  projectId?: string;
  label: string;
}

// Many syncs share an environment: each is asked for once per session (its client), not once per row.
const placesBySession = new WeakMap<Session['client'], Map<string, Promise<EnvironmentPlace>>>();

/** The environment's `project/environment`, asked once per session; its id when the API cannot name it. */
export function placeOf(session: Session, id: string): Promise<EnvironmentPlace> {
  const places = placesBySession.get(session.client) ?? new Map<string, Promise<EnvironmentPlace>>();
  placesBySession.set(session.client, places);
  let place = places.get(id);
  if (!place) {
    place = session.client.api
      .GET('/api/v1/environments/{envId}', { params: { path: { envId: id } } })
      .then((answer) => {
        const environment = unwrap(answer);
        return { id, projectId: environment.projectId, label: `${environment.projectSlug}/${environment.slug}` };
      })
      .catch(() => (places.delete(id), { id, label: id }));
    places.set(id, place);
  }
  return place;
}

/** An environment's name, linked to its page. */
export function EnvironmentLink({ id }: { id: string }) {
  const session = useSession();
  const [place, setPlace] = useState<EnvironmentPlace>({ id, label: id });
  useEffect(() => {
    let current = true;
    void placeOf(session, id).then((found) => current && setPlace(found));
    return () => void (current = false);
  }, [id]);
  return (
    <a href={`/console/environments/${id}`}>
      <code>{place.label}</code>
    </a>
  );
}
