import { announceClient } from './hooks.ts';
import { KMSClient } from '@aws-sdk/client-kms';

/**
 * The KMS client of a container. Created once at module scope by the handlers (never per request). Short timeouts
 * turn a hung KMS call into a TimeoutError (then a retryable SERVICE_UNAVAILABLE) well inside the function's own
 * timeout; `throwOnRequestTimeout` is needed because without it the SDK only logs a warning when one is exceeded.
 */
export function makeKmsClient(options: { region?: string } = {}): KMSClient {
  return announceClient(
    new KMSClient({
      ...(options.region ? { region: options.region } : {}),
      maxAttempts: 3,
      requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000, throwOnRequestTimeout: true },
    }),
    'KMS',
  );
}
