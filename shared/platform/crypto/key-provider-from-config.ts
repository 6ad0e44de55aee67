import { makeKmsClient } from '../clients/kms.ts';
import { configuredEncryption, type Config } from '../config.ts';
import type { KeyProvider } from './key-provider.ts';
import { makeKmsKeyProvider } from './kms-key-provider.ts';
import { makeLocalKeyring } from './local-keyring.ts';

const providers = new WeakMap<Config, KeyProvider>();

/**
 * The key provider the configuration names: KMS in AWS, the local keyring under `npm start`; one per container
 * and configuration, so the cipher and the service MAC key share one KMS client. Loaded on first use (a chunk of
 * its own, without the envelope cipher, which the service MAC keys do not need), so a cold start does not read the
 * KMS client.
 */
export function keyProviderFromConfig(config: Config): KeyProvider {
  let provider = providers.get(config);
  if (provider) return provider;
  const encryption = configuredEncryption(config);
  provider =
    encryption.kind === 'kms'
      ? makeKmsKeyProvider({ kms: makeKmsClient(), keyId: encryption.keyId })
      : makeLocalKeyring({ keyFile: encryption.keyFile });
  providers.set(config, provider);
  return provider;
}
