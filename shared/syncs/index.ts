/**
 * What other features use of syncs (decisions.md v1.4, "Syncs"): their vocabulary. The service, the pipeline and the
 * destinations are built by the syncs' functions through their wiring (entry modules, declared here as they land).
 */
export {
  DESTINATION_TYPES,
  SYNC_STATUSES,
  type Destination,
  type DestinationType,
  type SyncRecord,
  type SyncStatus,
} from './sync-records.ts';
