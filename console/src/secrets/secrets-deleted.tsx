import { useState } from 'preact/hooks';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox, Time, useAction } from '../ui/components.tsx';
import { pageQuery, PagedTable, usePaged } from '../ui/paged.tsx';
import type { Offers } from '../session.ts';
import { CurrentVersion } from './secrets-ui.tsx';

/**
 * An environment's deleted secrets still inside their recovery window (newest deletion first), each with `Restore`
 * for those who may delete (and so restore). `generation` changes when a secret was deleted on the page, to list it at once.
 */
export function DeletedSecrets({
  envId,
  generation,
  offers,
  onRestored,
}: {
  envId: string;
  generation: number;
  offers: Offers;
  onRestored: (restored: { id: string; key: string; version: number }) => void;
}) {
  const { client } = useSession();
  const paged = usePaged(
    (cursor) =>
      client.api.GET('/api/v1/environments/{envId}/secrets/deleted', { params: { path: { envId }, query: pageQuery(cursor, '50') } }),
    [envId, generation],
  );
  const restore = useAction();
  const [restoring, setRestoring] = useState<string | null>(null);
  const run = async (secretId: string) => {
    setRestoring(secretId);
    const restored = await restore.run(async () =>
      unwrap(await client.api.POST('/api/v1/secrets/{secretId}/restore', { params: { path: { secretId } } })),
    );
    setRestoring(null);
    if (restored) onRestored(restored), paged.reload();
  };
  return (
    <section aria-labelledby="deleted-heading">
      <h2 id="deleted-heading">Deleted secrets</h2>
      <ErrorBox error={restore.error} />
      <PagedTable
        paged={paged}
        what="deleted secrets"
        empty="No deleted secrets to restore."
        head={['Key', 'Version', 'Deleted', 'By', 'Restorable until']}
        actions
        tableClass="deleted"
        row={(item) => (
          <tr key={item.id}>
            <td>
              <code>{item.key}</code>
            </td>
            <td>
              <CurrentVersion version={item.currentVersion} />
            </td>
            <td>
              <Time at={item.deletedAt} />
            </td>
            <td>
              <code>{item.deletedBy}</code>
            </td>
            <td>
              <Time at={item.purgeAt} />
            </td>
            <td>
              {offers.delete && (
                <button type="button" disabled={restoring !== null} onClick={() => void run(item.id)}>
                  Restore
                </button>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
