/**
 * What other features use of secrets: the service's type, which the AWS API adapter (shared/aws/) calls as the REST
 * routes do, and the secret record it names. The service itself is made by the functions that serve it.
 */
export type { SecretService } from './secret-service.ts';
export type { SecretRecord } from './secret-store.ts';
