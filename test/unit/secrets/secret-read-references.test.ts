import { describe, expect, it } from 'vitest';
import { secretHarness } from './support.ts';

/**
 * `GET /api/v1/secrets/{secretId}` answers a secret's references (decisions.md v1.4, "Secret references"): the
 * targets its current value references, by path, and the secrets whose current value references it, by id.
 */
describe('reading a secret answers its references', () => {
  it('names the targets by path and the referencing secrets by id', async () => {
    // Prepare
    const h = secretHarness();
    const target = await h.write('DB_HOST', 'db.internal');
    const referrer = await h.write('DB_URL', 'postgres://${DB_HOST}/app');
    // Act
    const read = await h.service.read(h.caller, target.id);
    const readReferrer = await h.service.read(h.caller, referrer.id);
    // Assess
    expect(read).toMatchObject({ references: [], referencedBy: [referrer.id] });
    expect(readReferrer).toMatchObject({ references: ['app/prod/DB_HOST'], referencedBy: [] });
  });
});
