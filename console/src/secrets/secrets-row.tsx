import { useEffect, useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { CopyButton, ErrorBox, Time, useAction } from '../ui/components.tsx';
import { CurrentVersion, DeleteDialog } from './secrets-ui.tsx';
import type { Offers } from '../session.ts';
import { TitleField, useWriteOrPropose } from '../change-requests/propose.tsx';

/** What a row shows of a secret: never its value, which lives only in the row's own state while revealed. */
export interface SecretRowItem {
  id: string;
  key: string;
  currentVersion: number;
  updatedAt: string;
}

/** How long a revealed value stays on screen (decisions.md, "Console"). */
export const REVEAL_MS = 30_000;

/** A value on screen: a binary one (written through the AWS API as SecretBinary) is its base64 text, and says so. */
interface Revealed {
  value: string;
  version: number;
  encoding?: 'base64' | undefined;
}

interface RowProps {
  secret: SecretRowItem;
  envId: string;
  /** Which of Reveal, New version and Delete to offer. */
  offers: Offers;
  /** A new version was written here: the row's version and time. */
  onChanged: (secret: SecretRowItem) => void;
  onDeleted: (secretId: string) => void;
}

/**
 * One key of an environment: its version and time, its value on request (`Reveal`, audited by the API) until
 * `Hide` or 30 s, a new version checked against the version on screen (`If-Match`), history and delete. A secret
 * without a value yet (version 0) offers no `Reveal`, which could only answer NOT_FOUND, but `Set value`, which
 * writes its version 1.
 */
export function SecretRow({ secret, envId, offers, onChanged, onDeleted }: RowProps) {
  const { client } = useSession();
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  const [open, setOpen] = useState<'version' | 'delete' | null>(null);
  const reveal = useAction();
  const valueless = secret.currentVersion === 0;
  useEffect(() => {
    if (!revealed) return;
    const timer = setTimeout(() => setRevealed(null), REVEAL_MS);
    return () => clearTimeout(timer);
  }, [revealed]);
  const show = async () => {
    const answer = await reveal.run(async () =>
      unwrap(await client.api.POST('/api/v1/secrets/{secretId}/reveal', { params: { path: { secretId: secret.id } } })),
    );
    if (answer) setRevealed({ value: answer.value, version: answer.version, encoding: answer.encoding });
  };
  return (
    <tr>
      <td>
        <a href={`/console/secrets/${secret.id}`}>
          <code>{secret.key}</code>
        </a>
      </td>
      <td>
        <CurrentVersion version={secret.currentVersion} />
      </td>
      <td>
        <Time at={secret.updatedAt} />
      </td>
      <td class="value-cell">
        {revealed ? (
          <RevealedValue revealed={revealed} currentVersion={secret.currentVersion} onHide={() => setRevealed(null)} />
        ) : valueless ? (
          <span class="muted">none yet</span>
        ) : (
          <span class="masked" role="img" aria-label="hidden">
            ••••••••
          </span>
        )}
        {reveal.error !== null && <ErrorBox error={reveal.error} />}
      </td>
      <td>
        <div class="actions">
          {offers.reveal && !revealed && !valueless && (
            <button type="button" onClick={show} disabled={reveal.busy}>
              Reveal
            </button>
          )}
          {offers.write && (
            <button type="button" aria-expanded={open === 'version'} onClick={() => setOpen(open === 'version' ? null : 'version')}>
              {valueless ? 'Set value' : 'New version'}
            </button>
          )}
          <a class="action-link" href={`/console/secrets/${secret.id}`}>
            History
          </a>
          {offers.delete && (
            <button type="button" class="danger" onClick={() => setOpen('delete')}>
              Delete
            </button>
          )}
        </div>
        {open === 'version' && (
          <NewVersionForm
            secret={secret}
            envId={envId}
            onProposed={() => setOpen(null)}
            onSaved={(version) => {
              setOpen(null);
              setRevealed(null);
              onChanged({ ...secret, currentVersion: version, updatedAt: new Date().toISOString() });
            }}
          />
        )}
        {open === 'delete' && <DeleteDialog secret={secret} onCancel={() => setOpen(null)} onDeleted={() => onDeleted(secret.id)} />}
      </td>
    </tr>
  );
}

/**
 * A revealed value in its row, with `Hide` and `Copy` (which copies what is shown: a binary value's base64 text). A
 * binary value is marked "binary, base64" beside it, so nobody takes the encoding for the secret itself.
 */
function RevealedValue({ revealed, currentVersion, onHide }: { revealed: Revealed; currentVersion: number; onHide: () => void }) {
  const binary = revealed.encoding === 'base64';
  return (
    <span class="revealed">
      {revealed.value === '' ? <span class="muted">(empty)</span> : <code class="value">{revealed.value}</code>}
      {binary && <span class="badge encoding">binary, base64</span>}
      {revealed.version !== currentVersion && <span class="muted"> (version {revealed.version})</span>}
      <button type="button" onClick={onHide}>
        Hide
      </button>
      <CopyButton value={() => revealed.value} label={binary ? 'Copy base64' : 'Copy'} />
    </span>
  );
}

interface NewVersionProps {
  secret: SecretRowItem;
  envId: string;
  onSaved: (version: number) => void;
  onProposed: () => void;
}

/**
 * The next version of a key, written only if the version on screen is still the current one (`If-Match`): a change
 * made meanwhile by someone else answers CONFLICT, shown as the API gives it, instead of being overwritten. Under
 * review it is proposed instead (the merge checks the version then).
 */
function NewVersionForm({ secret, envId, onSaved, onProposed }: NewVersionProps) {
  const { client } = useSession();
  const [value, setValue] = useState('');
  const save = useWriteOrPropose();
  const submit = async (event: Event) => {
    event.preventDefault();
    const write = async () =>
      unwrap(
        await client.api.PUT('/api/v1/environments/{envId}/secrets', {
          params: { path: { envId }, header: { 'If-Match': String(secret.currentVersion) } },
          body: { key: secret.key, value },
        }),
      );
    const written = await save.submit({ key: secret.key, value }, write, onProposed);
    if (written) setValue(''), onSaved(written.version);
  };
  return (
    <form class="row-form" onSubmit={submit}>
      <label>
        Value
        <textarea
          rows={2}
          value={value}
          onInput={(e) => setValue((e.target as HTMLTextAreaElement).value)}
          autocomplete="off"
          spellcheck={false}
          maxLength={65536}
        />
      </label>
      <TitleField form={save} />
      <button type="submit" class="primary" disabled={save.busy}>
        {save.propose ? 'Propose' : 'Save'}
      </button>
      <ErrorBox error={save.error} />
    </form>
  );
}
