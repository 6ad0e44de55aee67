import { storageOnFirstRun } from './async-storage.ts';

/**
 * Which interface a request came through, for its audit entries (decisions.md: every audit entry made through the
 * AWS Secrets Manager API carries `interface: "aws"` in its metadata). The AWS adapter runs each operation inside
 * it; a REST request runs outside and its entries carry no such field. A leaf module: the audit entry reads it.
 */
export type RequestInterface = 'aws';

const current = storageOnFirstRun<RequestInterface>();

/** Runs an operation as one made through `name`. */
export function runThroughInterface<T>(name: RequestInterface, work: () => Promise<T>): Promise<T> {
  return current.run(name, work);
}

/** The interface of the request being handled, if it is not REST. */
export function requestInterface(): RequestInterface | undefined {
  return current.getStore();
}
