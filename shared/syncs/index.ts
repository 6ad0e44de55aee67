/**
 * What other features use of syncs (decisions.md v1.4, "Syncs"): their vocabulary, and the reader of a workspace's
 * syncs the stream fan-out routes changes with. The service, the pipeline and the destinations are built by the
 * syncs' functions through their wiring. Entry modules besides this file (architecture.test.ts reads these lines,
 * as a package's `exports` map):
 * @entry sync-wiring.ts the service as functions/syncs builds it, and what its routes accept and answer
 * @entry pipeline-wiring.ts the trigger the stream fan-out runs beside the webhooks'
 * @entry worker-wiring.ts the sync worker as its function builds it (its destinations loaded with the first push)
 */
export {
  DESTINATION_TYPES,
  SYNC_STATUSES,
  type Destination,
  type DestinationType,
  type SyncRecord,
  type SyncStatus,
} from './sync-records.ts';
export { makeSyncReader, MAX_SYNCS, syncOfItem, type SyncReader } from './sync-store.ts';
export type { CreateSyncInput, SyncPatch, SyncService } from './sync-service.ts';
