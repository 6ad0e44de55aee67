import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, inject, it } from 'vitest';
import { keys } from '../../../shared/platform/store/keys.ts';
import { call, localStore, newWorkspace } from '../../support/api.ts';
import { waitFor } from '../../support/webhooks.ts';

describe('a changed audit entry', () => {
  it('is reported by the stream fan-out (by its keys, never its content), as the deployed alarm counts it', async () => {
    // Prepare: a real entry, then a put over it without the store's condition, as code with table access could
    const ws = await newWorkspace();
    const project = (await call('POST', '/api/v1/projects', { token: ws.apiKey, body: { name: 'tampered' } })).body.data;
    const entry = (await localStore().store.listAudit(ws.workspaceId, { limit: 1 }, { target: project.id })).items[0]!;
    const { doc, tableName } = localStore();
    // Act
    await doc.send(
      new PutCommand({
        TableName: tableName,
        Item: { ...keys.audit(ws.workspaceId, entry.id), type: 'AuditEntry', action: 'project.create', secretNote: 'rewritten' },
      }),
    );
    // Assess
    const log = () => readFileSync(join(inject('localDir'), 'stack.log'), 'utf8');
    const line = await waitFor(
      async () =>
        log()
          .split('\n')
          .find((l) => l.includes('audit entry changed on the table') && l.includes(entry.id)),
      20_000,
      'the fan-out to report the change',
    );
    expect(JSON.parse(line!)).toMatchObject({
      level: 'ERROR',
      change: 'overwritten',
      partition: keys.audit(ws.workspaceId, entry.id).PK,
      auditId: entry.id,
    });
    expect(line).not.toContain('rewritten');
  });
});
