import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { ConfirmDialog, ErrorBox, Time, useAction } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { findSecret } from './secrets-context.ts';
import { DeleteDialog } from './secrets-ui.tsx';

/**
 * `/console/secrets/{secretId}`: the secret's history, newest first (who wrote each version when, and which version
 * a rollback restored; never a value), `Roll back` on each older version, and delete.
 */
export function Secret() {
  const { params } = useRoute();
  const secretId = params.secretId ?? '';
  const { client, credential } = useSession();
  const place = useLoaded(() => findSecret(client, secretId), [secretId]);
  const paged = usePaged(
    (cursor) => client.api.GET('/api/v1/secrets/{secretId}/versions', { params: { path: { secretId }, query: pageQuery(cursor, '50') } }),
    [secretId],
  );
  const [asking, setAsking] = useState<number | 'delete' | null>(null);
  const [deleted, setDeleted] = useState(false);
  const rollback = useAction();
  // Newest first: the first version listed is the current one.
  const current = paged.items[0]?.version;
  const canWrite = credential.offers.write;
  const secret = place.value;
  const key = secret?.key ?? secretId;

  const rollBack = async (version: number) => {
    setAsking(null);
    const written = await rollback.run(async () =>
      unwrap(
        await client.api.POST('/api/v1/secrets/{secretId}/rollback', {
          params: { path: { secretId }, header: { 'If-Match': String(current) } },
          body: { version },
        }),
      ),
    );
    if (written) paged.reload();
  };

  return (
    <section>
      <nav class="crumbs" aria-label="Breadcrumbs">
        <a href="/console/projects">Projects</a> /{' '}
        {secret && (
          <>
            <a href={`/console/projects/${secret.projectId}`}>{secret.projectSlug}</a> /{' '}
            <a href={`/console/environments/${secret.environmentId}`}>{secret.envSlug}</a> /
          </>
        )}
      </nav>
      <h1>
        <code>{key}</code>
      </h1>
      <p class="muted">History: every version, newest first. Values are never shown here.</p>
      {deleted ? (
        <p role="status">
          Deleted.{' '}
          {secret && (
            <>
              Restore it from <a href={`/console/environments/${secret.environmentId}`}>its environment</a>'s deleted secrets within its
              recovery window.
            </>
          )}
        </p>
      ) : (
        canWrite &&
        current !== undefined && (
          <div class="toolbar">
            <button type="button" class="danger" onClick={() => setAsking('delete')}>
              Delete
            </button>
          </div>
        )
      )}
      <ErrorBox error={rollback.error} />
      <PagedTable
        paged={paged}
        what="history"
        empty="No versions."
        head={['Version', 'Created', 'Created by', 'Rolled back from']}
        actions
        tableClass="history"
        gone={deleted}
        row={(item) => (
          <tr key={item.version}>
            <td>
              {item.version}
              {item.version === current && <span class="badge">current</span>}
            </td>
            <td>
              <Time at={item.createdAt} />
            </td>
            <td>
              <code>{item.createdBy}</code>
            </td>
            <td>{item.rolledBackFrom === null ? <span class="muted">—</span> : `version ${item.rolledBackFrom}`}</td>
            <td>
              {canWrite && current !== undefined && item.version < current && (
                <button type="button" disabled={rollback.busy} onClick={() => setAsking(item.version)}>
                  Roll back
                </button>
              )}
            </td>
          </tr>
        )}
      />
      {typeof asking === 'number' && (
        <ConfirmDialog
          text={`Roll back ${key} to version ${asking}? Its value becomes version ${(current ?? 0) + 1}.`}
          onConfirm={() => void rollBack(asking)}
          onCancel={() => setAsking(null)}
        />
      )}
      {asking === 'delete' && (
        <DeleteDialog
          secret={{ id: secretId, key }}
          onCancel={() => setAsking(null)}
          onDeleted={() => (setAsking(null), setDeleted(true))}
        />
      )}
    </section>
  );
}
