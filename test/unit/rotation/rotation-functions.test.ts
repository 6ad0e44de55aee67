import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newId } from '../../../shared/platform/ids.ts';
import { iamPatternOf } from '../../../shared/platform/rotation-function-arns.ts';
import { rotationFunctionMatcher, rotationFunctionsAllowed } from '../../../shared/rotation/rotation-functions.ts';

/**
 * Which rotation functions the service may invoke for a workspace: the stack's patterns on AWS (with
 * `${workspaceId}` standing for the caller's workspace, decisions.md v1.4), the registered stand-ins locally.
 */

const dir = mkdtempSync(join(tmpdir(), 'rotation-functions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const WS_A = newId('workspace');
const WS_B = newId('workspace');
const PER_WORKSPACE = 'arn:aws:lambda:eu-west-1:123456789012:function:rotate-${workspaceId}-*';
const fn = (name: string) => `arn:aws:lambda:eu-west-1:123456789012:function:${name}`;

describe('the rotation functions the stack may invoke', () => {
  it('on AWS: those matching a pattern of ROTATION_FUNCTION_ARNS, and none without one', async () => {
    const allowed = rotationFunctionsAllowed({
      ROTATION_FUNCTION_ARNS:
        'arn:aws:lambda:eu-west-1:123456789012:function:rotate-*, arn:aws:lambda:eu-west-1:123456789012:function:exact',
    });
    expect(await allowed(fn('rotate-db'), WS_A)).toBe(true);
    expect(await allowed(fn('exact'), WS_A)).toBe(true);
    expect(await allowed(fn('other'), WS_A)).toBe(false);
    expect(await allowed('arn:aws:lambda:eu-west-1:999999999999:function:rotate-db', WS_A)).toBe(false);
    expect(await rotationFunctionsAllowed({})(fn('rotate-db'), WS_A)).toBe(false);
  });

  it("with ${workspaceId}: a caller of workspace A may invoke A's functions and not B's", async () => {
    // Prepare
    const allowed = rotationFunctionsAllowed({ ROTATION_FUNCTION_ARNS: PER_WORKSPACE });
    // Act / Assess
    expect(await allowed(fn(`rotate-${WS_A}-db`), WS_A)).toBe(true);
    expect(await allowed(fn(`rotate-${WS_B}-db`), WS_A)).toBe(false);
    expect(await allowed(fn(`rotate-${WS_B}-db`), WS_B)).toBe(true);
    // The placeholder is no wildcard: the literal text matches nothing.
    expect(await allowed(fn('rotate-${workspaceId}-db'), WS_A)).toBe(false);
  });

  it('lets no workspace id bring a wildcard into a pattern (the glob has no escape: such an id matches no templated pattern)', () => {
    // Prepare
    const matches = rotationFunctionMatcher([PER_WORKSPACE, fn('shared')]);
    // Act / Assess
    for (const injected of ['*', '**', 'ws_?', 'ws_1/x', 'ws:1', ''])
      expect(matches(fn(`rotate-${WS_B}-db`), injected), injected).toBe(false);
    // A pattern without the placeholder still answers for every workspace.
    expect(matches(fn('shared'), '*')).toBe(true);
  });

  it('becomes * where IAM holds it, which cannot know the workspace', () => {
    expect(iamPatternOf(PER_WORKSPACE)).toBe('arn:aws:lambda:eu-west-1:123456789012:function:rotate-*-*');
  });

  it('locally: the stand-ins registered now (the file is read at each question)', async () => {
    const file = join(dir, 'functions.json');
    const allowed = rotationFunctionsAllowed({ LOCAL_ROTATION_FUNCTIONS_FILE: file });
    const arn = 'arn:aws:lambda:us-east-1:000000000000:function:rotate-db';
    expect(await allowed(arn, WS_A)).toBe(false);
    writeFileSync(file, JSON.stringify({ version: 1, functions: { 'rotate-db': {} } }));
    expect(await allowed(arn, WS_A)).toBe(true);
    expect(await allowed('arn:aws:lambda:us-east-1:000000000000:function:other', WS_A)).toBe(false);
    expect(await allowed('arn:aws:lambda:eu-west-1:123456789012:function:rotate-db', WS_A)).toBe(false);
  });
});
