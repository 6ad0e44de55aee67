import { describe, expect, it } from 'vitest';
import { makeWebhookRoutes } from '../../../../functions/webhooks/routes.ts';
import { ValidationError } from '../../../../shared/platform/errors.ts';
import type { RouteDefinition, RouteInput } from '../../../../shared/platform/http/route.ts';
import { parseInput } from '../../../../shared/platform/http/validation.ts';
import type { WebhookService } from '../../../../shared/webhooks/endpoints/webhook-service.ts';
import { principal } from '../../support/fakes.ts';

const ENDPOINT = 'we_01JZZZZZZZZZZZZZZZZZZZZZZZ';

/** The rotation route over a service that records the overlap it was asked for. */
function rotationRoute() {
  const asked: number[] = [];
  const service = { rotateSecret: async (_principal: unknown, _id: string, hours: number) => (asked.push(hours), { id: ENDPOINT }) };
  const route: RouteDefinition = makeWebhookRoutes(service as unknown as WebhookService)['POST /api/v1/webhooks/{id}/rotate-secret'];
  /** Validates `body` as the route does (undefined: no body at all) and runs the handler with it. */
  const run = async (body: unknown) => {
    const input = {
      principal: principal(),
      params: parseInput(route.params!, { id: ENDPOINT }),
      body: parseInput(route.body!, body),
    } as RouteInput<unknown, unknown, unknown>;
    await route.handler(input);
    return asked.at(-1);
  };
  return { route, run };
}

function refusal(run: () => Promise<unknown>): Promise<string> {
  return run().then(
    () => {
      throw new Error('expected VALIDATION_ERROR');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as Error).message;
    },
  );
}

describe('POST /api/v1/webhooks/{id}/rotate-secret: its input', () => {
  it('takes 0 to 48 whole hours; no body or {} means 24', async () => {
    const { run } = rotationRoute();
    expect(await run(undefined)).toBe(24);
    expect(await run({})).toBe(24);
    expect(await run({ expireCurrentInHours: 0 })).toBe(0);
    expect(await run({ expireCurrentInHours: 48 })).toBe(48);
    expect(await run({ expireCurrentInHours: 1 })).toBe(1);
  });

  it.each([
    [-1, 'expireCurrentInHours: must be an integer from 0 to 48'],
    [49, 'expireCurrentInHours: must be an integer from 0 to 48'],
    [1.5, 'expireCurrentInHours: must be an integer from 0 to 48'],
    ['24', 'expireCurrentInHours: must be an integer from 0 to 48'],
    [null, 'expireCurrentInHours: must be an integer from 0 to 48'],
  ])('refuses expireCurrentInHours %j, naming the field and the rule', async (hours, message) => {
    const { run } = rotationRoute();
    expect(await refusal(() => run({ expireCurrentInHours: hours }))).toBe(message);
  });

  it('refuses unknown fields and a body that is not an object', async () => {
    const { run } = rotationRoute();
    expect(await refusal(() => run({ expireCurrentInHours: 1, expireInHours: 2 }))).toBe('expireInHours: is not a known field');
    expect(await refusal(() => run([]))).toBe('body: must be an object');
  });

  it('is an admin route that records its answer sealed under an Idempotency-Key', () => {
    const { route } = rotationRoute();
    expect(route).toMatchObject({
      operationId: 'rotateWebhookSecret',
      access: 'admin',
      idempotent: true,
      oneTimeSecret: true,
      errors: ['NOT_FOUND', 'CONFLICT'],
    });
  });
});
