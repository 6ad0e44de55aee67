/**
 * What other features use of change requests (decisions.md v1.4): nothing yet but their vocabulary; the service is
 * built by its function through the wiring. Entry modules besides this file (architecture.test.ts reads these
 * lines, as a package's `exports` map):
 * @entry change-request-answers.ts what the change-requests routes answer, for them and the API description
 * @entry change-request-wiring.ts the service as functions/change-requests builds it
 */
export { MAX_CHANGES, STATUSES, type ChangeRequestStatus } from './change-request-records.ts';
export type { ChangeRequestService, OpenInput, ProposedChange } from './change-request-service.ts';
export type { ReviewInput } from './change-request-reviews.ts';
