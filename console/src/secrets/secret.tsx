import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso/router';
import { unwrap, useSession } from '../api.ts';
import { ConfirmDialog, ErrorBox, Time, useAction } from '../ui/components.tsx';
import { useLoaded } from '../ui/loaded.ts';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { useTitle } from '../ui/title.ts';
import { RawValue, SecretReferences, type SecretReferenceFields } from './secret-references.tsx';
import { SecretRotation } from './secret-rotation.tsx';
import { CurrentVersion, DeleteDialog } from './secrets-ui.tsx';

/**
 * `/console/secrets/{secretId}`: the secret, read in one request (`GET /api/v1/secrets/{secretId}`: its place, its
 * ARN in the AWS API, its description, tags and rotation), and its history, newest first (who wrote each version
 * when, which version a rollback restored, its VersionId and staging labels; never a value), `Roll back` on each
 * older version, and delete. A secret created without a value (version 0) says so, and has no history yet. Its
 * references (targets by path) and the secrets referencing it are listed; `Show raw` reveals the value as written.
 */
export function Secret() {
  const { params } = useRoute();
  const secretId = params.secretId ?? '';
  const { client, credential } = useSession();
  const place = useLoaded(
    async () => {
      const found = unwrap(await client.api.GET('/api/v1/secrets/{secretId}', { params: { path: { secretId } } }));
      const [projectSlug = '', envSlug = ''] = found.path.split('/');
      const { references, referencedBy } = found as typeof found & SecretReferenceFields;
      return { ...found, projectSlug, envSlug, references, referencedBy };
    },
    [secretId],
    // Kept on screen while read again (after a rotation), so the rotation panel keeps what it said.
    { keep: true },
  );
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
  // The history's newest version once listed (it follows rollbacks and rotations made here), else the secret's own.
  const currentVersion = current ?? secret?.currentVersion;
  const valueless = currentVersion === 0;
  useTitle('History', secret?.projectSlug, secret?.envSlug, secret?.key);

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
      <ErrorBox error={place.error} />
      {secret && (
        <dl class="secret-facts">
          <dt>Current version</dt>
          <dd>
            {currentVersion !== undefined && <CurrentVersion version={currentVersion} />}
            {valueless && <span class="muted"> its first value written becomes version 1</span>}
          </dd>
          <dt>ARN</dt>
          <dd>
            <code>{secret.arn}</code>
          </dd>
          <dt>Description</dt>
          <dd>{secret.description ?? <span class="muted">none</span>}</dd>
          <dt>Tags</dt>
          <dd>
            {Object.keys(secret.tags).length === 0 ? (
              <span class="muted">none</span>
            ) : (
              Object.entries(secret.tags).map(([tag, value]) => (
                <span class="tag" key={tag}>
                  <code>{tag}</code>
                  {value !== '' && (
                    <>
                      {' = '}
                      <code>{value}</code>
                    </>
                  )}
                </span>
              ))
            )}
          </dd>
        </dl>
      )}
      {secret && <SecretReferences references={secret.references} referencedBy={secret.referencedBy} />}
      {secret && credential.offers.reveal && !valueless && !deleted && <RawValue secretId={secretId} />}
      {secret && (
        <SecretRotation
          secretId={secretId}
          rotation={secret.rotation}
          canWrite={canWrite && !deleted}
          reload={place.reload}
          onRotated={paged.reload}
        />
      )}
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
        currentVersion !== undefined && (
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
        empty={valueless ? 'No versions: no value has been written yet.' : 'No versions.'}
        head={['Version', 'Labels', 'Version id', 'Created', 'Created by', 'Rolled back from']}
        actions
        tableClass="history"
        gone={deleted}
        row={(item) => (
          <tr key={item.version}>
            <td>{item.version}</td>
            <td>
              {item.stages.length === 0 ? (
                <span class="muted">—</span>
              ) : (
                item.stages.map((stage) => (
                  <span class="badge" key={stage}>
                    {stage}
                  </span>
                ))
              )}
            </td>
            <td>
              <code class="version-id">{item.versionId}</code>
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
