import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { describeError } from '../api.ts';

/**
 * The API's code and message, plainly (a FORBIDDEN included). A 401 needs nothing here: the session's client takes
 * the person back to sign-in, which shows it (main.tsx).
 */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const { code, message } = describeError(error);
  return (
    <div class="error" role="alert">
      <strong>{code}</strong> {message}
    </div>
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

/** A destructive action asks first; its confirming button is named `Confirm` (decisions.md, "Console"). */
export function ConfirmDialog({ text, onConfirm, onCancel }: { text: string; onConfirm: () => void; onCancel: () => void }) {
  return (
    <div class="dialog" role="dialog" aria-modal="true" aria-label={text}>
      <p>{text}</p>
      <button type="button" class="danger" onClick={onConfirm}>
        Confirm
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </div>
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
