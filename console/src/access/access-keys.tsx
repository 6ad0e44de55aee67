import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { AdminError, OnceSecret, type Schemas } from '../ui/admin-ui.tsx';
import { ConfirmDialog, ErrorBox, Time, useAction } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import { EditKeyForm, NewKeyForm } from './admin-key-form.tsx';
import { ruleSummary } from './admin-rules.tsx';
import { useTitle } from '../ui/title.ts';

type AccessKey = Schemas['AccessKey'];

/** `/console/access-keys`: the workspace's access keys; create (the token shown once), change, revoke. */
export function AccessKeys() {
  useTitle('Access keys');
  const { client } = useSession();
  const paged = usePaged((cursor) => client.api.GET('/api/v1/access-keys', { params: { query: pageQuery(cursor, '50') } }), []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<Schemas['AccessKeyCreated'] | null>(null);
  const [editing, setEditing] = useState<AccessKey | null>(null);
  const [revoking, setRevoking] = useState<AccessKey | null>(null);
  const revoke = useAction();
  const confirmRevoke = async (key: AccessKey) => {
    setRevoking(null);
    const done = await revoke.run(async () =>
      unwrap(await client.api.POST('/api/v1/access-keys/{id}/revoke', { params: { path: { id: key.id } } })),
    );
    if (done) paged.reload();
  };
  return (
    <section>
      <h1>Access keys</h1>
      {created && <Created created={created} onDismiss={() => setCreated(null)} />}
      <p>
        <button type="button" aria-expanded={creating} onClick={() => setCreating(!creating)}>
          New access key
        </button>
      </p>
      {creating && <NewKeyForm onCreated={(made) => (setCreated(made), setCreating(false), paged.reload())} />}
      {revoking && (
        <ConfirmDialog
          text={`Revoke ${revoking.name}? Its tokens stop working at their next request.`}
          onConfirm={() => void confirmRevoke(revoking)}
          onCancel={() => setRevoking(null)}
        />
      )}
      <ErrorBox error={revoke.error} />
      <PagedTable
        paged={paged}
        what="access keys"
        empty="No access keys yet."
        head={['Name', 'ID', 'Permissions', 'Allowed CIDRs', 'Auth', 'Created', 'Last used', 'Status']}
        actions
        tableClass="access-keys"
        failure={(error) => <AdminError error={error} />}
        row={(key) => (
          <KeyRow key={key.id} accessKey={key} onEdit={setEditing} onRevoke={setRevoking} editing={editing?.id === key.id}>
            {editing && (
              <EditKeyForm
                key={editing.id}
                accessKey={editing}
                onCancel={() => setEditing(null)}
                onSaved={() => (setEditing(null), paged.reload())}
              />
            )}
          </KeyRow>
        )}
      />
    </section>
  );
}

/** What a new key's creator must take away now: its token, once; or, for a workload key, how its workloads log in. */
function Created({ created, onDismiss }: { created: Schemas['AccessKeyCreated']; onDismiss: () => void }) {
  if (created.auth.type === 'aws_sigv4' && created.awsSecretAccessKey) {
    return (
      <OnceSecret label="AWS secret access key" value={created.awsSecretAccessKey} onDismiss={onDismiss}>
        <p>
          The AWS key pair of <strong>{created.name}</strong> ({created.id}), for the AWS Secrets Manager API at <code>POST /</code> of the
          API's base URL: access key id <code>{created.auth.awsAccessKeyId}</code> and the secret below. The secret is kept sealed and never
          shown again: if it is lost, make a new key.
        </p>
      </OnceSecret>
    );
  }
  if (created.token === null) {
    return (
      <div class="once" role="status">
        <p>
          Access key <strong>{created.name}</strong> created. Its workloads log in with <code>POST /api/v1/auth/login</code> and access key
          id <code>{created.id}</code>.
        </p>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
    );
  }
  return (
    <OnceSecret label="Access key token" value={created.token} onDismiss={onDismiss}>
      <p>
        The token of <strong>{created.name}</strong> ({created.id}). It is stored only as a hash: if it is lost, make a new key.
      </p>
    </OnceSecret>
  );
}

interface KeyRowProps {
  accessKey: AccessKey;
  onEdit: (key: AccessKey) => void;
  onRevoke: (key: AccessKey) => void;
  /** This key is being edited: its form (`children`) shows in a row below the key's. */
  editing: boolean;
  children: ComponentChildren;
}

/** An access key's row, and below it the form that edits it (when it is being edited). */
function KeyRow({ accessKey: key, onEdit, onRevoke, editing, children }: KeyRowProps) {
  return (
    <>
      <tr class={key.status}>
        <td>{key.name}</td>
        <td>
          <code>{key.id}</code>
          {key.tokenPrefix && <div class="muted token-prefix">{key.tokenPrefix}…</div>}
        </td>
        <td>
          <ul class="rule-list">
            {key.permissions.map((rule, i) => (
              <li key={i} class={rule.effect}>
                {ruleSummary(rule)}
              </li>
            ))}
          </ul>
        </td>
        <td>{key.allowedCidrs.length ? key.allowedCidrs.join(', ') : <span class="muted">anywhere</span>}</td>
        <td>
          <AuthSummary accessKey={key} />
        </td>
        <td>
          <Time at={key.createdAt} />
          <div class="muted">{key.createdBy}</div>
        </td>
        <td>
          <Time at={key.lastUsedAt} />
        </td>
        <td>
          <Status accessKey={key} />
        </td>
        <td class="row-actions">
          {key.status !== 'revoked' && (
            <>
              <button type="button" aria-label={`Edit ${key.name}`} onClick={() => onEdit(key)}>
                Edit
              </button>
              <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => onRevoke(key)}>
                Revoke
              </button>
            </>
          )}
        </td>
      </tr>
      {editing && (
        <tr class="edit-row">
          <td colSpan={9}>{children}</td>
        </tr>
      )}
    </>
  );
}

/** How the key authenticates, read-only: a held token, or an AWS IAM or OIDC login with the life of its tokens. */
function AuthSummary({ accessKey }: { accessKey: AccessKey }) {
  const { auth, tokenTtlSeconds } = accessKey;
  const ttl = tokenTtlSeconds ? <div class="muted">tokens live {tokenTtlSeconds} s</div> : null;
  if (auth.type === 'aws_iam') {
    return (
      <>
        AWS IAM:{' '}
        {auth.principalArns.map((arn) => (
          <code key={arn}>{arn}</code>
        ))}
        {ttl}
      </>
    );
  }
  if (auth.type === 'oidc') {
    return (
      <>
        OIDC: <code>{auth.issuer}</code> aud <code>{auth.audience}</code> sub <code>{auth.subject}</code>
        {auth.claims && Object.entries(auth.claims).map(([name, value]) => <code key={name}>{`${name}=${value}`}</code>)}
        {ttl}
      </>
    );
  }
  if (auth.type === 'aws_sigv4') {
    return (
      <>
        AWS credentials: <code>{auth.awsAccessKeyId}</code>
      </>
    );
  }
  return <>token</>;
}

function Status({ accessKey }: { accessKey: AccessKey }) {
  if (accessKey.status === 'revoked') {
    return (
      <>
        <strong class="danger-text">revoked</strong> <Time at={accessKey.revokedAt} />
      </>
    );
  }
  return (
    <>
      {accessKey.status}
      {accessKey.expiresAt && (
        <div class="muted">
          {accessKey.status === 'expired' ? 'expired' : 'expires'} <Time at={accessKey.expiresAt} />
        </div>
      )}
    </>
  );
}
