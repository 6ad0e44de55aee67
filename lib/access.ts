import { AWS_KEY_CONTEXT, SECRET_VALUE_CONTEXT, SIGNING_SECRET_CONTEXT } from '../shared/platform/crypto/context.ts';
import type { PipelineFunction } from '../shared/platform/functions.ts';
import type { RouteGroup } from '../shared/platform/routes.ts';
import { api, type FunctionAccess, IDEMPOTENT_ANSWER_KEY, type Items, MAC_KEY } from './api-access.ts';
import { AUDIT_STREAM_ACCESS } from './audit-stream-access.ts';
import { CHANGE_REQUEST_ACCESS } from './change-request-access.ts';
import { SYNC_ACCESS } from './sync-access.ts';
import { INDEX_PARTITIONS as INDEX, PARTITIONS as P } from './table-access.ts';

/**
 * What each function may do, in one place. Every entry lists, per action, the partitions its code paths reach
 * (services and store, read through: docs/single-table-design.md); a transaction needs the action of each item it
 * writes, on that item's partition. DynamoDB Local ignores IAM, so a partition missing here fails only in AWS:
 * test/infra/table-reach.test.ts checks each function against the keys its code builds.
 */

export type { FunctionAccess } from './api-access.ts';

/**
 * What secrets' routes do to the table, REST's and the AWS API's alike: heads, paths and key items (a deleted
 * secret's record and path marker in place of head and path, its list item) in the workspace partition, versions (and
 * VersionId items, the deleted record of a delete before v1.4) in the secret's own, the audit entry.
 */
const SECRET_ITEMS: Items = {
  BatchGetItem: [P.secretVersions],
  GetItem: [P.workspace, P.secretVersions],
  PutItem: [P.workspace, P.secretVersions, P.audit],
  UpdateItem: [P.credentialRevealCounter, P.workspaceRevealCounter, P.deniedAttempts],
  // A delete removes the key item, a restore the list item (workspace partition); a restore of a delete before v1.4
  // removes its record beside the versions.
  DeleteItem: [P.workspace, P.secretVersions],
  ConditionCheckItem: [P.workspace],
  BatchWriteItem: [P.secretVersions],
  Query: [P.workspace, P.secretVersions],
};

export const ROUTE_GROUP_ACCESS: Record<RouteGroup, FunctionAccess> = {
  // List projects and the slugs taken for a base (Query), a project by slug (GetItem); create puts the project, its
  // slug claim and its audit entry in one transaction.
  projects: {
    table: api({ items: { Query: [P.workspace], GetItem: [P.workspace], PutItem: [P.workspace, P.audit] }, writesAudit: true }),
    keys: [MAC_KEY],
  },
  // As projects, and creating an environment checks that its project exists (ConditionCheckItem) while it puts the
  // environment by id, by slug and in its project's list; the routes by slug read the project and environment.
  environments: {
    table: api({
      items: { Query: [P.workspace], GetItem: [P.workspace], PutItem: [P.workspace, P.audit], ConditionCheckItem: [P.workspace] },
      writesAudit: true,
    }),
    keys: [MAC_KEY],
  },
  // Reads of a secret (head, path, key item, environment) are prefetched with the credential or read alone, an older
  // version from its own partition. A write puts head, path and key items, the version and the audit entry; a reveal
  // counts against the two rate counters (UpdateItem) and puts its audit entry; loading an environment reads its path
  // items (one Query a page) and puts one audit entry per secret (conditional PutItems, never a batch). A delete puts
  // its record over the head and its marker over the path, removes the key item and puts the list item with the audit
  // entry; without a recovery window it then deletes the versions in batches. Lists Query the workspace and version
  // partitions; search reads GSI1. A denied attempt counts on its credential's DENIED# counter (UpdateItem) and, at
  // most once a minute, puts its `access.denied` entry. A search by a credential scoped to a few projects reads their
  // environments' GSI4 partitions instead.
  secrets: {
    table: api({
      items: SECRET_ITEMS,
      // The first scoped search of an old environment gives its key items their GSI4 keys and marks it (searchIndexed).
      attributeUpdates: [{ partitions: [P.workspace], attributes: ['searchIndexed', 'GSI4PK', 'GSI4SK'] }],
      indexQueries: { GSI1: [INDEX.workspaceSecrets], GSI4: [INDEX.environmentSecrets] },
      writesAudit: true,
    }),
    keys: [{ actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: SECRET_VALUE_CONTEXT }, MAC_KEY],
    sendsRotations: true, // POST …/rotate queues a rotation's first step
  },
  'change-requests': CHANGE_REQUEST_ACCESS,
  syncs: SYNC_ACCESS,
  'audit-streams': AUDIT_STREAM_ACCESS,
  // Reads the audit log (and the digests, items of the same partition), nothing else; no route changes state, so no
  // idempotency record either. GET /api/v1/audit/public-key reads the digest key's public key (never signs).
  audit: { table: api({ items: { Query: [P.audit] }, idempotent: false }), keys: [MAC_KEY], readsDigestPublicKey: true },
  // Creates credentials: an access key's record (AK#, in the workspace partition), its token item, the lookup of its
  // workspace by its id (AKID#) and the audit entry, under the workspace's key counter; revoke and PATCH update record,
  // token and counter, then the key's live login tokens (found by a Query of LOGINS#). A replayed creation answers
  // the token again: its recorded answer is sealed and opened. An AWS key pair's secret is sealed, never opened here.
  'access-keys': {
    table: api({
      items: {
        GetItem: [P.workspace],
        Query: [P.workspace, P.loginTokens],
        PutItem: [P.workspace, P.accessKeyById, P.token, P.audit],
        UpdateItem: [P.workspace, P.token],
      },
      writesAudit: true,
      createsCredentials: true,
      changesCredentials: true,
    }),
    keys: [{ actions: ['kms:GenerateDataKey'], contextKeys: AWS_KEY_CONTEXT }, IDEMPOTENT_ANSWER_KEY, MAC_KEY],
  },
  // Endpoints live in the workspace partition (put, update, delete, under the endpoint counter); pausing fails the
  // endpoint's queued deliveries and deleting removes its log: found on GSI3 (and GSI1 for deliveries made before
  // GSI3), their records read in batches, failed one by one or deleted in batches, with its hourly statistics (a
  // Query beside the deliveries). Registration and rotation encrypt a signing secret (never decrypt one).
  webhooks: {
    table: api({
      items: {
        BatchGetItem: [P.deliveries],
        GetItem: [P.workspace],
        Query: [P.workspace, P.deliveries],
        PutItem: [P.workspace, P.audit],
        UpdateItem: [P.workspace, P.deliveries],
        DeleteItem: [P.workspace],
        BatchWriteItem: [P.deliveries],
      },
      indexQueries: { GSI1: [INDEX.legacyEndpointLog], GSI3: [INDEX.endpointLog] },
      writesAudit: true,
    }),
    keys: [{ actions: ['kms:GenerateDataKey'], contextKeys: SIGNING_SECRET_CONTEXT }, IDEMPOTENT_ANSWER_KEY, MAC_KEY],
  },
  // The workspace's deliveries (Query), one by id, an endpoint's log from GSI3 with its records in batches; a
  // manual retry updates the delivery and its hour's statistics with its audit entry and queues one attempt now. A
  // test event puts its delivery with its audit entry and statistics; a recovery counts the endpoint's failed
  // deliveries on GSI4, puts its record with its audit entry and queues its first step. Statistics are a Query of
  // the endpoint's hourly items in the deliveries partition.
  'webhook-deliveries': {
    table: api({
      items: {
        BatchGetItem: [P.deliveries],
        GetItem: [P.workspace, P.deliveries],
        Query: [P.deliveries],
        PutItem: [P.audit, P.deliveries],
        UpdateItem: [P.deliveries],
      },
      indexQueries: { GSI3: [INDEX.endpointLog], GSI4: [INDEX.failedDeliveries] },
      writesAudit: true,
    }),
    keys: [MAC_KEY],
    sendsDeliveries: true,
  },
  // A login authenticates nobody: it reads the key's workspace by the key's id (AKID#), then the key's record, the
  // workspace and the key's two login counters of the minute (BatchGetItem of WS# and RATE#<ws>#<ak>), and issues the
  // token in one transaction: the record checked unrevoked and unchanged (ConditionCheckItem), the token item, its
  // entry among the key's live tokens (LOGINS#), the audit entry and the count of successful logins (UpdateItem of
  // RATE#<ws>#<ak>); a refusal counts on its address's counter (UpdateItem of RATE#<ws>#<ak>) and puts its audit
  // entry alone. The MAC roots sign the token's checksum.
  auth: {
    table: {
      items: {
        GetItem: [P.accessKeyById, P.macKey],
        BatchGetItem: [P.workspace, P.credentialRevealCounter],
        ConditionCheckItem: [P.workspace],
        UpdateItem: [P.credentialRevealCounter],
        PutItem: [P.token, P.loginTokens, P.audit],
      },
      writesAudit: true,
      createsCredentials: true,
    },
    keys: [MAC_KEY],
  },
  // Serves the API description bundled into it: no table, no key, no queue.
  openapi: {},
  // The AWS API: a signing key's token item by its key id's hash (GetItem), then authentication as everywhere (a
  // session token of temporary credentials is a login's token: its checksum and key pair need the MAC roots); then
  // what the REST secrets group does to secrets, with their description and tags (UpdateItem of head, path and key
  // items), the VersionId items beside the versions and the deleted-secret path items. Opens the keys' secret halves.
  aws: {
    table: api({
      items: SECRET_ITEMS,
      attributeUpdates: [
        { partitions: [P.workspace], attributes: ['searchIndexed', 'GSI4PK', 'GSI4SK', 'deletedSecretsIndexed'] },
        // The first ListSecrets with IncludePlannedDeletion of a workspace puts on GSI1 the deleted records of deletes
        // made before they went there (and marks the workspace: deletedSecretsIndexed).
        { partitions: [P.secretVersions], attributes: ['GSI1PK', 'GSI1SK'] },
      ],
      // ListSecrets reads the workspace's search index, or a scoped key's environments' GSI4 partitions; with
      // IncludePlannedDeletion, the search index and the deleted secrets' records on GSI1.
      indexQueries: { GSI1: [INDEX.workspaceSecrets, INDEX.deletedSecrets], GSI4: [INDEX.environmentSecrets] },
      idempotent: false,
      writesAudit: true,
    }),
    keys: [
      { actions: ['kms:GenerateDataKey', 'kms:Decrypt'], contextKeys: SECRET_VALUE_CONTEXT },
      { actions: ['kms:Decrypt'], contextKeys: AWS_KEY_CONTEXT },
      MAC_KEY,
    ],
    // RotateSecret queues a rotation's first step.
    sendsRotations: true,
  },
};

export const PIPELINE_ACCESS: Record<PipelineFunction, FunctionAccess> = {
  // Lists the workspace's endpoints and puts one delivery per subscriber (conditional put), then queues it; hands a
  // first attempt whose message could not be queued to the sweeper (UpdateItem). Writes no audit entry: it reads them
  // from the stream, and reports one that changes (shared/webhooks/deliveries/fanout.ts). A value change walks the
  // reverse index of secret references (Query per path; BatchGetItem of heads, of the changed secret's slugs).
  'webhook-fanout': {
    table: { items: { Query: [P.workspace], BatchGetItem: [P.workspace], PutItem: [P.deliveries], UpdateItem: [P.deliveries] } },
    sendsDeliveries: true,
    // A value change queues one push per sync of its environment (one Query of the workspace's syncs).
    sendsSyncs: true,
    // Every inserted audit entry is queued for each active audit stream of its workspace (the workspace's streams:
    // one Query per container and half-minute).
    sendsAuditStreams: true,
  },
  // Reads the delivery and its endpoint (a batch with many endpoints of one workspace reads them with one Query of
  // the workspace's partition), claims and records attempts (a late one counted in the endpoint's statistics),
  // counts the endpoint's failures; switching a failing endpoint off updates it with its audit entry, then fails its
  // queued deliveries (found on GSI3, and GSI1 for deliveries made before GSI3, their status read in batches).
  // Decrypts signing secrets to sign. Runs recoveries: reads the record, pages the endpoint's failed deliveries on
  // GSI4, queues each again (UpdateItem) and moves the record on. Rolls the statistics up: Queries the workspace's
  // deliveries and statistics items, writes the bucket, hour and watermark items (UpdateItem, deliveries' partition).
  'delivery-worker': {
    table: {
      items: {
        GetItem: [P.workspace, P.deliveries],
        BatchGetItem: [P.deliveries],
        Query: [P.workspace, P.deliveries],
        UpdateItem: [P.workspace, P.deliveries],
        PutItem: [P.audit],
      },
      indexQueries: { GSI1: [INDEX.legacyEndpointLog], GSI3: [INDEX.endpointLog], GSI4: [INDEX.failedDeliveries] },
      writesAudit: true,
    },
    keys: [{ actions: ['kms:Decrypt'], contextKeys: SIGNING_SECRET_CONTEXT }],
    sendsDeliveries: true,
  },
  // Finds overdue pending deliveries on the GSI2 shards and swaps their attempt token before re-queueing, and
  // recoveries that stopped moving (their step's message is sent again).
  'delivery-sweeper': {
    table: {
      items: { UpdateItem: [P.deliveries] },
      indexQueries: { GSI2: [...INDEX.dueDeliveries, INDEX.runningRecoveries] },
    },
    sendsDeliveries: true,
  },
};
