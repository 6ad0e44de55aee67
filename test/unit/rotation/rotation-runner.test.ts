import { describe, expect, it, vi } from 'vitest';
import type { FunctionInvoker, RotationEvent } from '../../../shared/rotation/function-invoker.ts';
import { makeRotationRunner } from '../../../shared/rotation/rotation-runner.ts';
import type { MessageStep, RotationMessage, StoredRotation } from '../../../shared/rotation/index.ts';

/**
 * The runner's decisions, over a fake secrets service and invoker: the four steps in order, one per message; a
 * failure at any step (or AWSCURRENT elsewhere after finishSecret) ends the rotation failed; a message whose token no
 * longer holds the lease does nothing; a function the stack may not invoke is never invoked.
 */

const TOKEN = 'b0a6e5a2-5d1f-4d5e-9a55-6f4b1c2d3e4f';
const ARN = 'arn:aws:lambda:us-east-1:000000000000:function:rotator';

const rotation = (functionArn: string | null): StoredRotation => ({
  secretId: 'sec_1',
  accountId: 'acc_1',
  enabled: true,
  functionArn,
  schedule: 'rate(7 days)',
  rules: {},
  duration: null,
  generator: { length: 12, excludePunctuation: true },
  configuredAt: '2026-01-01T00:00:00.000Z',
  lastRotatedAt: null,
  nextRotationAt: null,
  lease: { token: TOKEN, version: 2, step: 'createSecret', until: Date.now() + 60_000, startedBy: 'key_1' },
});

function harness(options: { functionArn?: string | null; held?: boolean; allowed?: boolean; fail?: string; currentAfter?: string } = {}) {
  const queued: RotationMessage[] = [];
  const finished: unknown[] = [];
  const written: string[] = [];
  const invoked: RotationEvent[] = [];
  const secrets = {
    rotationHeldBy: vi.fn(async () =>
      options.held === false ? undefined : rotation(options.functionArn === undefined ? ARN : options.functionArn),
    ),
    rotationTarget: vi.fn(async () => ({
      arn: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:p/e/K-abcdef',
      currentVersionId: options.currentAfter ?? TOKEN,
    })),
    writeRotatedValue: vi.fn(async (_rotation: StoredRotation, _ws: string, _token: string, value: string) => void written.push(value)),
    nextRotationStep: vi.fn(async (message: RotationMessage) => void queued.push(message)),
    finishRotation: vi.fn(async (_ws: string, _rotation: StoredRotation, _token: string, outcome: unknown) => void finished.push(outcome)),
    startScheduledRotation: vi.fn(async () => undefined),
    syncRotationSchedule: vi.fn(async () => undefined),
    rotationFunctionAllowed: vi.fn(async () => options.allowed ?? true),
  };
  const invoker: FunctionInvoker = {
    invoke: async (_arn, event) => {
      invoked.push(event);
      return event.Step === options.fail ? { ok: false, error: `Error: ${event.Step} failed` } : { ok: true };
    },
  };
  const failures: string[] = [];
  const runner = makeRotationRunner({ rotations: secrets as never, invoker, onFailure: (step) => void failures.push(step) });
  const message = (step: MessageStep): RotationMessage => ({ workspaceId: 'ws_1', secretId: 'sec_1', token: TOKEN, step });
  return { runner, message, queued, finished, written, invoked, failures, secrets };
}

describe('the rotation runner', () => {
  it('runs the four steps in order, one per message, and succeeds when AWSCURRENT is on the token after finishSecret', async () => {
    const h = harness();
    let next: RotationMessage | undefined = h.message('createSecret');
    while (next) {
      const before = h.queued.length;
      await h.runner.run(next);
      next = h.queued.length > before ? h.queued.at(-1) : undefined;
    }
    expect(h.invoked.map((event) => event.Step)).toEqual(['createSecret', 'setSecret', 'testSecret', 'finishSecret']);
    expect(h.invoked[0]).toEqual({
      SecretId: expect.stringMatching(/^arn:aws:secretsmanager:/),
      ClientRequestToken: TOKEN,
      Step: 'createSecret',
    });
    expect(h.finished).toEqual([{ ok: true }]);
    expect(h.failures).toEqual([]);
  });

  it('fails at the step that failed, with its error, and queues nothing after it', async () => {
    const h = harness({ fail: 'testSecret' });
    await h.runner.run(h.message('testSecret'));
    expect(h.finished).toEqual([{ ok: false, step: 'testSecret', error: 'Error: testSecret failed' }]);
    expect(h.queued).toEqual([]);
    expect(h.failures).toEqual(['testSecret']);
  });

  it('fails finishSecret when AWSCURRENT is elsewhere afterwards', async () => {
    const h = harness({ currentAfter: 'another-version-id-0000000000000000' });
    await h.runner.run(h.message('finishSecret'));
    expect(h.finished).toEqual([{ ok: false, step: 'finishSecret', error: expect.stringContaining('AWSCURRENT') }]);
  });

  it('does nothing for a message whose token no longer holds the lease (a repeat or a stale step)', async () => {
    const h = harness({ held: false });
    await h.runner.run(h.message('setSecret'));
    expect(h.invoked).toEqual([]);
    expect(h.finished).toEqual([]);
  });

  it('never invokes a function the stack may not invoke: AccessDeniedException at the step', async () => {
    const h = harness({ allowed: false });
    await h.runner.run(h.message('createSecret'));
    expect(h.secrets.rotationFunctionAllowed).toHaveBeenCalledWith('ws_1', ARN);
    expect(h.invoked).toEqual([]);
    expect(h.finished).toEqual([{ ok: false, step: 'createSecret', error: expect.stringContaining('AccessDeniedException') }]);
  });

  it('without a function writes one value with the generator settings and succeeds', async () => {
    const h = harness({ functionArn: null });
    await h.runner.run(h.message('generate'));
    expect(h.written).toHaveLength(1);
    expect(h.written[0]).toMatch(/^[A-Za-z0-9]{12}$/);
    expect(h.finished).toEqual([{ ok: true }]);
  });

  it("hands a schedule's start and a configuration's schedule request to the service, and runs no step for them", async () => {
    const h = harness();
    await h.runner.run(h.message('start'));
    await h.runner.run(h.message('schedule'));
    expect(h.secrets.startScheduledRotation).toHaveBeenCalledWith('ws_1', 'sec_1');
    expect(h.secrets.syncRotationSchedule).toHaveBeenCalledWith('ws_1', 'sec_1');
    expect(h.invoked).toEqual([]);
    expect(h.secrets.rotationHeldBy).not.toHaveBeenCalled();
  });
});
