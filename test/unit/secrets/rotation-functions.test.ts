import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { rotationFunctionsAllowed } from '../../../shared/secrets/rotation-functions.ts';

/** Which rotation functions a configuration may name: the stack's patterns on AWS, the registered stand-ins locally. */

const dir = mkdtempSync(join(tmpdir(), 'rotation-functions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the rotation functions the stack may invoke', () => {
  it('on AWS: those matching a pattern of ROTATION_FUNCTION_ARNS, and none without one', async () => {
    const allowed = rotationFunctionsAllowed({
      ROTATION_FUNCTION_ARNS:
        'arn:aws:lambda:eu-west-1:123456789012:function:rotate-*, arn:aws:lambda:eu-west-1:123456789012:function:exact',
    });
    expect(await allowed('arn:aws:lambda:eu-west-1:123456789012:function:rotate-db')).toBe(true);
    expect(await allowed('arn:aws:lambda:eu-west-1:123456789012:function:exact')).toBe(true);
    expect(await allowed('arn:aws:lambda:eu-west-1:123456789012:function:other')).toBe(false);
    expect(await allowed('arn:aws:lambda:eu-west-1:999999999999:function:rotate-db')).toBe(false);
    expect(await rotationFunctionsAllowed({})('arn:aws:lambda:eu-west-1:123456789012:function:rotate-db')).toBe(false);
  });

  it('locally: the stand-ins registered now (the file is read at each question)', async () => {
    const file = join(dir, 'functions.json');
    const allowed = rotationFunctionsAllowed({ LOCAL_ROTATION_FUNCTIONS_FILE: file });
    const arn = 'arn:aws:lambda:us-east-1:000000000000:function:rotate-db';
    expect(await allowed(arn)).toBe(false);
    writeFileSync(file, JSON.stringify({ version: 1, functions: { 'rotate-db': {} } }));
    expect(await allowed(arn)).toBe(true);
    expect(await allowed('arn:aws:lambda:us-east-1:000000000000:function:other')).toBe(false);
    expect(await allowed('arn:aws:lambda:eu-west-1:123456789012:function:rotate-db')).toBe(false);
  });
});
