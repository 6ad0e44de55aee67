import { useEffect, useState } from 'preact/hooks';
import type { paths } from '@secrets-service/sdk/client';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox, Time, useAction } from '../ui/components.tsx';

/** A secret's rotation as `GET /api/v1/secrets/{secretId}` answers it (null when none is configured). */
export type Rotation = paths['/api/v1/secrets/{secretId}']['get']['responses'][200]['content']['application/json']['data']['rotation'];

/** How often, and how many times, the page looks again for the end of a rotation it started. */
const WATCH_EVERY_MS = 1500;
const WATCH_TIMES = 20;

/**
 * The rotation of a secret (decisions.md v1.3, "Rotation"): whether it is on, what makes the new value (a rotation
 * function's ARN, or a value the service generates), the schedule and its window, when it last ran and when it runs
 * next; and `Rotate now` for a role that may write the secret. A rotation runs in the background after the API's
 * 202: the secret is read again every 1.5 s until `lastRotatedAt` changes (at most 30 s), then `onRotated` so the
 * history shows the new version. A refusal shows as the API gives it (CONFLICT: one is running already).
 */
export function SecretRotation({
  secretId,
  rotation,
  canWrite,
  reload,
  onRotated,
}: {
  secretId: string;
  rotation: Rotation;
  canWrite: boolean;
  /** Reads the secret again (its rotation with it). */
  reload: () => void;
  /** Told when the rotation it started has ended: the history has a new version. */
  onRotated: () => void;
}) {
  const { client } = useSession();
  const rotate = useAction();
  const [outcome, setOutcome] = useState<string | null>(null);
  // The lastRotatedAt seen when the rotation was started, and how many times the page has looked since.
  const [watching, setWatching] = useState<{ before: string | null; looks: number } | null>(null);
  const last = rotation?.lastRotatedAt ?? null;

  useEffect(() => {
    if (!watching) return undefined;
    if (last !== watching.before) {
      setWatching(null);
      setOutcome('Rotated: a new version is current.');
      onRotated();
      return undefined;
    }
    if (watching.looks >= WATCH_TIMES) return void setWatching(null);
    const timer = setTimeout(() => (setWatching({ ...watching, looks: watching.looks + 1 }), reload()), WATCH_EVERY_MS);
    return () => clearTimeout(timer);
  }, [watching, last]);

  const start = async () => {
    setOutcome(null);
    const started = await rotate.run(async () =>
      unwrap(await client.api.POST('/api/v1/secrets/{secretId}/rotate', { params: { path: { secretId } } })),
    );
    if (!started) return;
    setOutcome(`Rotation started: the new version will be ${started.versionId}.`);
    setWatching({ before: last, looks: 0 });
    reload();
  };

  return (
    <section class="rotation" aria-labelledby="rotation-heading">
      <h2 id="rotation-heading">Rotation</h2>
      {rotation ? <RotationFacts rotation={rotation} /> : <p class="muted">Not configured.</p>}
      {canWrite && rotation && (
        <div class="toolbar">
          <button type="button" disabled={rotate.busy || watching !== null} onClick={() => void start()}>
            Rotate now
          </button>
        </div>
      )}
      {outcome && <p role="status">{outcome}</p>}
      {/* A CONFLICT says why: a rotation is already running, or none is configured any more. */}
      <ErrorBox error={rotate.error} />
    </section>
  );
}

/** The configured rotation, field by field as the API names them. */
function RotationFacts({ rotation }: { rotation: NonNullable<Rotation> }) {
  return (
    <dl class="secret-facts rotation-facts">
      <dt>Status</dt>
      <dd>{rotation.enabled ? 'on' : 'off'}</dd>
      <dt>New value from</dt>
      <dd>{rotation.function ? <code>{rotation.function}</code> : 'generated value (no rotation function)'}</dd>
      <dt>Schedule</dt>
      <dd>
        <code>{rotation.schedule}</code>
      </dd>
      <dt>Window</dt>
      <dd>{rotation.duration ?? <span class="muted">none</span>}</dd>
      <dt>Last rotated</dt>
      <dd>
        <Time at={rotation.lastRotatedAt} />
      </dd>
      <dt>Next rotation</dt>
      <dd>
        <Time at={rotation.nextRotationAt} />
      </dd>
    </dl>
  );
}
