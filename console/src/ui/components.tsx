import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { describeError } from '../api.ts';

/**
 * The API's code and message, plainly (a FORBIDDEN included), and the lines its details give: the references a reveal
 * could not resolve, the keys a merge found changed. A 401 needs nothing here: the session's client takes the person
 * back to sign-in, which shows it (main.tsx).
 */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const { code, message, references, stale } = describeError(error);
  return (
    <div class="error" role="alert">
      <strong>{code}</strong> {message}
      {references && <Lines label="Unresolved references" lines={references} />}
      {stale && <Lines label="Stale keys" lines={stale} />}
    </div>
  );
}

function Lines({ label, lines }: { label: string; lines: string[] }) {
  return (
    <ul class="plain" aria-label={label}>
      {lines.map((line) => (
        <li key={line}>
          <code>{line}</code>
        </li>
      ))}
    </ul>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="muted empty">{children}</p>;
}

const CONTROLS = 'button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), a[href]';

/**
 * A modal dialog: the native `<dialog>` shown with `showModal()`, so the page behind it is inert and Escape cancels
 * it (`onCancel`, as its Cancel button does). Open, it moves focus to its first control; closed (unmounted), it
 * gives focus back to whatever had it before, the button that opened it.
 */
export function Dialog({ label, onCancel, children }: { label: string; onCancel: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const cancel = useRef(onCancel);
  cancel.current = onCancel;
  useLayoutEffect(() => {
    const dialog = ref.current!;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    // Escape closes it (the browser's own cancel): the view is told, as by its Cancel button.
    const closed = () => cancel.current();
    dialog.addEventListener('close', closed);
    dialog.showModal();
    dialog.querySelector<HTMLElement>(CONTROLS)?.focus();
    return () => {
      dialog.removeEventListener('close', closed);
      // Closed first: while it is modal, everything outside it is inert and cannot take focus.
      if (dialog.open) dialog.close();
      if (opener?.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog ref={ref} class="dialog" aria-label={label}>
      {children}
    </dialog>
  );
}

/** A destructive action asks first; its confirming button is named `Confirm` (decisions.md, "Console"). */
export function ConfirmDialog({ text, onConfirm, onCancel }: { text: string; onConfirm: () => void; onCancel: () => void }) {
  return (
    <Dialog label={text} onCancel={onCancel}>
      <p>{text}</p>
      <button type="button" class="danger" onClick={onConfirm}>
        Confirm
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </Dialog>
  );
}

/** Runs an action with busy and error state, for buttons and forms. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, run, clear: () => setError(null) };
}

/** A value copied to the clipboard on request, with a short confirmation. */
export function CopyButton({ value, label = 'Copy' }: { value: () => string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={async () => {
        await navigator.clipboard.writeText(value());
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

/** A timestamp as the console shows it: the ISO date and time, to the second, in UTC. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  return <time dateTime={at}>{at.replace('T', ' ').slice(0, 19)} UTC</time>;
}
