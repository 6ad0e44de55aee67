import { useLayoutEffect, useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { Dialog, ErrorBox, useAction } from '../ui/components.tsx';
import { TitleField, useWriteOrPropose } from '../change-requests/propose.tsx';

/**
 * A long list put on screen a slice per frame: `first` items at once, then `step` more each animation frame, so a
 * thousand rows never hold the page still (typing in a filter stays responsive). A new `key` (the filter) starts
 * again from the first slice; items added to the same list (another page loaded) are appended slice by slice.
 */
export function useProgressive<T>(items: T[], key: string, first = 60, step = 60): T[] {
  const [state, setState] = useState({ key, count: first });
  const count = state.key === key ? state.count : first;
  // A layout effect, so the next slice is asked for in the frame that paints this one (not one frame later).
  useLayoutEffect(() => {
    if (count < items.length) {
      const frame = requestAnimationFrame(() => setState({ key, count: count + step }));
      return () => cancelAnimationFrame(frame);
    }
    // All on screen: remember for which key, so that coming back to an earlier one starts from a slice again.
    if (state.key !== key) setState({ key, count });
    return undefined;
  }, [key, count, items.length, state.key]);
  return count >= items.length ? items : items.slice(0, count);
}

/**
 * A new project or environment by name (admins): cleared once the API made it, so `onCreate` can list it at once.
 */
export function NameForm({ label, button, onCreate }: { label: string; button: string; onCreate: (name: string) => Promise<unknown> }) {
  const [name, setName] = useState('');
  const create = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const made = await create.run(() => onCreate(name));
    if (made) setName('');
  };
  return (
    <form class="inline" onSubmit={submit}>
      <label>
        {label}
        <input value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} required maxLength={120} />
      </label>
      <button type="submit" disabled={create.busy}>
        {button}
      </button>
      <ErrorBox error={create.error} />
    </form>
  );
}

/**
 * A secret's current version as the views show it: "(no value)" for a secret created without a value (version 0,
 * as the AWS API's CreateSecret without SecretString or SecretBinary makes it; decisions.md v1.4), never "0".
 */
export function CurrentVersion({ version, prefix = '' }: { version: number; prefix?: string }) {
  return version === 0 ? <span class="muted no-value">(no value)</span> : <>{`${prefix}${version}`}</>;
}

/** The same in words, for accessible names: "no value" or "version 3". */
export const versionWords = (version: number) => (version === 0 ? 'no value' : `version ${version}`);

/** The recovery windows the API takes (decisions.md, "Recoverable deletes"): 0, or 7 to 30 days. */
export function validWindow(days: string): boolean {
  if (!/^\d{1,2}$/.test(days)) return false;
  const n = Number(days);
  return n === 0 || (n >= 7 && n <= 30);
}

/**
 * Asks before a delete, with its recovery window (default 7 days; 0 purges at once), then deletes. Its confirming
 * button is `Confirm`, as every destructive action's (decisions.md, "Console"). Under review it proposes the delete
 * instead, under a title (a merged delete keeps the default window), and `Propose` only opens a change request.
 */
export function DeleteDialog({
  secret,
  onDeleted,
  onCancel,
}: {
  secret: { id: string; key: string };
  onDeleted: () => void;
  onCancel: () => void;
}) {
  const { client } = useSession();
  const [days, setDays] = useState('7');
  const remove = useWriteOrPropose();
  const valid = remove.propose ? remove.title.trim() !== '' : validWindow(days);
  const confirm = async () => {
    const write = async () =>
      unwrap(
        await client.api.DELETE('/api/v1/secrets/{secretId}', {
          params: { path: { secretId: secret.id }, query: { recoveryWindowDays: days } },
        }),
      );
    const done = await remove.submit({ key: secret.key, delete: true }, write, onCancel);
    if (done) onDeleted();
  };
  return (
    <Dialog label={`Delete ${secret.key}`} onCancel={onCancel}>
      <p>
        Delete <code>{secret.key}</code> and every version?
      </p>
      {remove.propose ? <TitleField form={remove} /> : <WindowField days={days} valid={valid} onInput={setDays} />}
      <ErrorBox error={remove.error} />
      <button type="button" class="danger" disabled={!valid || remove.busy} onClick={confirm}>
        {remove.propose ? 'Propose' : 'Confirm'}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </Dialog>
  );
}

/** A delete's recovery window, with what it means. */
function WindowField({ days, valid, onInput }: { days: string; valid: boolean; onInput: (days: string) => void }) {
  return (
    <>
      <label>
        Recovery window (days)
        <input type="number" min={0} max={30} value={days} onInput={(e) => onInput((e.target as HTMLInputElement).value)} />
      </label>
      <p class="muted">
        {!valid
          ? '0, or 7 to 30 days.'
          : days === '0'
            ? 'Purged at once: it cannot be restored.'
            : `Restorable from "Deleted secrets" for ${Number(days)} days.`}
      </p>
    </>
  );
}
