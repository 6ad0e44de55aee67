/**
 * What other features use of syncs (decisions.md v1.4, "Syncs"): their vocabulary. The service, the pipeline and the
 * destinations are built by the syncs' functions through their wiring. Entry modules besides this file
 * (architecture.test.ts reads these lines, as a package's `exports` map):
 * @entry pipeline-wiring.ts the trigger the stream fan-out runs and the sync worker, as their functions build them
 */
export {
  DESTINATION_TYPES,
  SYNC_STATUSES,
  type Destination,
  type DestinationType,
  type SyncRecord,
  type SyncStatus,
} from './sync-records.ts';
