import type { ComponentChildren } from 'preact';
import type { components } from '@secrets-service/sdk/client';
import { describeError } from '../api.ts';
import { CopyButton, ErrorBox } from './components.tsx';

/** The API's schemas, as the admin views name them. */
export type Schemas = components['schemas'];

/**
 * A one-time secret (an access key's token, a webhook signing secret) in the box it is shown in, once. The value lives
 * in the state of the view that received it and nowhere else: not in storage, the address, the title or a log; `Done`
 * forgets it.
 */
export function OnceSecret({
  label,
  value,
  onDismiss,
  children,
}: {
  label: string;
  value: string;
  onDismiss: () => void;
  children?: ComponentChildren;
}) {
  return (
    <div class="once" role="region" aria-label={label}>
      <p>
        <strong>{label}</strong> — copy it now: it will not be shown again.
      </p>
      {children}
      <p>
        <code class="secret-value">{value}</code>
      </p>
      <div class="actions">
        <CopyButton value={() => value} />
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

/**
 * An error of an admin view: the API's code and message (ErrorBox), and for a FORBIDDEN who may use the page, so a
 * person without the admin role sees plainly why it is empty.
 */
export function AdminError({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  const forbidden = describeError(error).code === 'FORBIDDEN';
  return (
    <>
      <ErrorBox error={error} />
      {forbidden && <p class="muted">Only API keys and people with the admin role may use this page.</p>}
    </>
  );
}

/** A list typed as comma- or line-separated values: each trimmed, empty ones dropped. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((value) => value.trim())
    .filter((value) => value !== '');
}

/** A time as a `datetime-local` input shows it, in UTC like every time of the console (`2026-01-31T09:05`). */
export function toUtcInput(at: Date): string {
  return at.toISOString().slice(0, 16);
}

/** The ISO time of a `datetime-local` input read as UTC, or undefined when it is empty. */
export function fromUtcInput(value: string): string | undefined {
  if (!value) return undefined;
  const at = new Date(`${value}Z`);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}

/** The value of the input or select an event came from. */
export function valueOf(event: Event): string {
  return (event.currentTarget as HTMLInputElement).value;
}

/** Metadata as one compact line of JSON. */
export function compactJson(value: unknown): string {
  return JSON.stringify(value) ?? '';
}
