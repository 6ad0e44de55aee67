import type { Principal } from '../../platform/principal.ts';
import { assertMayManageWebhooks, assertMayOperateDeliveries } from '../../access/index.ts';
import { iso, type Clock } from '../../platform/clock.ts';
import { signingSecretContext } from '../../platform/crypto/context.ts';
import type { Cipher } from '../../platform/crypto/envelope.ts';
import { NotFoundError, ValidationError } from '../../platform/errors.ts';
import { newId } from '../../platform/ids.ts';
import type { DeliveryApiStore } from '../deliveries/delivery-store.ts';
import type { EndpointApiStore, StoredEndpoint } from './endpoint-store.ts';
import { newSigningSecret, previousSecretExpiry, secretHint } from './signature.ts';
import { auditEntry } from '../../audit/index.ts';
import type { PageRequest } from '../../platform/store/query.ts';
import type { Prefetched } from '../../platform/prefetch.ts';
import { announceAnswer } from '../../platform/idempotency-scope.ts';
import { redactUrl } from './redact-url.ts';

/** What the endpoint service asks of the stores: the endpoints', and of their deliveries what pausing and deleting do. */
export type WebhookServiceStore = Pick<
  EndpointApiStore,
  'listEndpointPage' | 'getEndpoint' | 'endpointByIdKeys' | 'createEndpoint' | 'updateEndpoint' | 'rotateEndpointSecret' | 'deleteEndpoint'
> &
  Pick<DeliveryApiStore, 'pendingDeliveryIds' | 'failPending' | 'deleteEndpointDeliveries' | 'listDeliveries'>;

export interface WebhookServiceDeps {
  store: WebhookServiceStore;
  cipher: Cipher;
  clock: Clock;
  /** The SSRF guard's verdict on a url (https, resolves only to public addresses). */
  checkUrl: (url: string) => Promise<{ ok: true } | { ok: false; reason: string }>;
}

/** Rotation overlaps are given in hours. */
const HOUR_MS = 3_600_000;

/** Webhook endpoints and each one's delivery log, for people and API keys. */
export function makeWebhookService(deps: WebhookServiceDeps) {
  const { store, clock } = deps;
  const ownEndpoint = async (principal: Principal, endpointId: string, prefetched?: Prefetched): Promise<StoredEndpoint> => {
    const endpoint = await store.getEndpoint(principal.workspaceId, endpointId, prefetched);
    if (!endpoint) throw new NotFoundError(`webhook endpoint ${endpointId} was not found`);
    return endpoint;
  };
  const checkUrl = async (url: string) => {
    const verdict = await deps.checkUrl(url);
    if (!verdict.ok) throw new ValidationError(`url: ${verdict.reason}`);
  };
  /** An endpoint as answered: the previous signing secret's expiry only while it still signs (null once it has passed). */
  const shown = (endpoint: StoredEndpoint, now: number): StoredEndpoint => ({
    ...endpoint,
    previousSecretExpiresAt: previousSecretExpiry(endpoint, now),
  });
  /** Queued deliveries of a paused endpoint fail, so none is sent once it is off. */
  const failQueued = async (workspaceId: string, endpointId: string, reason: string) => {
    const now = iso(clock.now());
    for (const id of await deps.store.pendingDeliveryIds(endpointId)) await store.failPending(workspaceId, id, reason, now);
  };

  return {
    /** Registers an endpoint; the answer is the only one that carries the full signing secret. */
    async register(principal: Principal, input: { url: string; events: string[]; description?: string | undefined }) {
      assertMayManageWebhooks(principal);
      await checkUrl(input.url);
      const now = clock.now();
      const id = newId('webhookEndpoint', now);
      const secret = newSigningSecret();
      const endpoint: StoredEndpoint = {
        id,
        url: input.url,
        events: [...new Set(input.events)],
        description: input.description ?? null,
        enabled: true,
        secretHint: secretHint(secret),
        createdAt: iso(now),
        updatedAt: iso(now),
        disabledAt: null,
        disabledReason: null,
        consecutiveFailures: 0,
        failingSince: null,
        accountId: principal.accountId,
        previousSecretExpiresAt: null,
        sealedSecret: await deps.cipher.encrypt(secret, signingSecretContext(principal.workspaceId, id)),
      };
      const audit = auditEntry(principal, 'webhook_endpoint.create', id, { url: redactUrl(endpoint.url), events: endpoint.events }, now);
      const answer = announceAnswer({ ...endpoint, secret });
      await store.createEndpoint(principal.workspaceId, endpoint, audit);
      return answer;
    },

    async list(principal: Principal, page: PageRequest) {
      assertMayManageWebhooks(principal);
      const result = await store.listEndpointPage(principal.workspaceId, page);
      const now = clock.now();
      return { ...result, items: result.items.map((endpoint) => shown(endpoint, now)) };
    },

    /** What a lookup by id reads ahead with the credential. */
    prefetch: (workspaceId: string, endpointId: string) => store.endpointByIdKeys(workspaceId, endpointId),

    /** One endpoint as the list shows it (the signing secret's hint, never the secret); NOT_FOUND unless ours. */
    async get(principal: Principal, endpointId: string, prefetched?: Prefetched) {
      assertMayManageWebhooks(principal);
      return shown(await ownEndpoint(principal, endpointId, prefetched), clock.now());
    },

    /**
     * Changes url, events, description or enabled; the signing secret never changes. Pausing fails the queued
     * deliveries; enabling again (after a pause or an automatic switch-off) clears the failure streak.
     */
    async update(
      principal: Principal,
      endpointId: string,
      patch: { url?: string; events?: string[]; description?: string | null; enabled?: boolean },
    ) {
      assertMayManageWebhooks(principal);
      const current = await ownEndpoint(principal, endpointId);
      if (patch.url !== undefined && patch.url !== current.url) await checkUrl(patch.url);
      const now = clock.now();
      const next: StoredEndpoint = {
        ...current,
        ...(patch.url !== undefined ? { url: patch.url } : {}),
        ...(patch.events !== undefined ? { events: [...new Set(patch.events)] } : {}),
        ...(patch.description !== undefined ? { description: patch.description } : {}),
        updatedAt: iso(now),
      };
      if (patch.enabled === false && current.enabled)
        Object.assign(next, { enabled: false, disabledAt: iso(now), disabledReason: 'paused' });
      if (patch.enabled === true && !current.enabled) {
        Object.assign(next, { enabled: true, disabledAt: null, disabledReason: null, consecutiveFailures: 0, failingSince: null });
      }
      const changed = Object.keys(patch).filter((field) => patch[field as keyof typeof patch] !== undefined);
      const resetStreak = patch.enabled === true && !current.enabled;
      const audit = auditEntry(
        principal,
        'webhook_endpoint.update',
        endpointId,
        { changed, url: redactUrl(next.url), enabled: next.enabled },
        now,
      );
      const answer = announceAnswer(shown(next, now));
      await store.updateEndpoint(principal.workspaceId, next, current.updatedAt, resetStreak, audit);
      if (current.enabled && !next.enabled) await failQueued(principal.workspaceId, endpointId, 'endpoint paused');
      return answer;
    },

    /**
     * A new signing secret, answered this once. The secret it replaces keeps signing beside it for
     * `expireCurrentInHours` (0: it stops at once); only one previous secret is kept, so one still signing from an
     * earlier rotation stops at once. A paused endpoint may be rotated too: a leaked secret must be replaceable
     * while it is off. The audit entry names the endpoint and the overlap, never a secret or its hint.
     */
    async rotateSecret(principal: Principal, endpointId: string, expireCurrentInHours: number) {
      assertMayManageWebhooks(principal);
      const current = await ownEndpoint(principal, endpointId);
      const now = clock.now();
      const secret = newSigningSecret();
      const overlap = expireCurrentInHours > 0;
      const next: StoredEndpoint = {
        ...current,
        secretHint: secretHint(secret),
        updatedAt: iso(now),
        sealedSecret: await deps.cipher.encrypt(secret, signingSecretContext(principal.workspaceId, endpointId)),
        previousSealedSecret: overlap ? current.sealedSecret : undefined,
        previousSecretExpiresAt: overlap ? iso(now + expireCurrentInHours * HOUR_MS) : null,
      };
      const metadata = { expireCurrentInHours, previousSecretExpiresAt: next.previousSecretExpiresAt };
      const audit = auditEntry(principal, 'webhook_endpoint.secret_rotate', endpointId, metadata, now);
      const answer = announceAnswer({ ...shown(next, now), secret });
      await store.rotateEndpointSecret(principal.workspaceId, next, { updatedAt: current.updatedAt, secret: current.sealedSecret }, audit);
      return answer;
    },

    /** Deletes the endpoint and its delivery log. */
    async delete(principal: Principal, endpointId: string) {
      assertMayManageWebhooks(principal);
      const endpoint = await ownEndpoint(principal, endpointId);
      const answer = announceAnswer({ id: endpointId, deleted: true as const });
      await store.deleteEndpoint(
        principal.workspaceId,
        endpointId,
        auditEntry(principal, 'webhook_endpoint.delete', endpointId, { url: redactUrl(endpoint.url) }, clock.now()),
      );
      await store.deleteEndpointDeliveries(principal.workspaceId, endpointId);
      return answer;
    },

    async endpointDeliveries(principal: Principal, endpointId: string, page: PageRequest) {
      assertMayOperateDeliveries(principal);
      await ownEndpoint(principal, endpointId);
      return store.listDeliveries(principal.workspaceId, { endpointId }, page);
    },
  };
}

export type WebhookService = ReturnType<typeof makeWebhookService>;
