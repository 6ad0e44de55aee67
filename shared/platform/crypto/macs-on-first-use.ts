import { configuredEncryption, type Config } from '../config.ts';
import { loadOnce } from '../on-first-use.ts';
import { makeMacKeyStore } from '../store/mac-key-store.ts';
import type { Db } from '../store/send.ts';
import { loadServiceMacs, type ServiceMacs } from './mac-key.ts';

/**
 * The service MACs of an API function, read and unsealed on the first issued token or Idempotency-Key and then
 * kept for the container's life (one GetItem and one KMS Decrypt per container). The key provider, with the KMS
 * client, loads with them (a chunk of its own): a request with a JWT and no Idempotency-Key never needs them.
 */
export function serviceMacsOnFirstUse(config: Config, db: Db): () => Promise<ServiceMacs> {
  configuredEncryption(config);
  return loadOnce(async () =>
    loadServiceMacs(makeMacKeyStore(db), async () => (await import('./key-provider-from-config.ts')).keyProviderFromConfig(config)),
  );
}
