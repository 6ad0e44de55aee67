import { describe, expect, it } from 'vitest';
import { formatStatsRollupMessage, parseStatsRollupMessage } from '../../../../shared/webhooks/stats/stats-message.ts';
import { WS } from '../stats-support.ts';

const ms = (time: string) => Date.parse(`2026-03-02T${time}Z`);

describe('statistics rollup message', () => {
  it('is read strictly: exactly a workspace id and a time', () => {
    const message = { workspaceId: WS, rollupUntil: ms('09:42:00.000') };
    expect(parseStatsRollupMessage(formatStatsRollupMessage(message))).toEqual(message);
    for (const body of [
      JSON.stringify({ workspaceId: WS }),
      JSON.stringify({ workspaceId: 'ws_x', rollupUntil: 1 }),
      JSON.stringify({ workspaceId: WS, rollupUntil: -1 }),
      JSON.stringify({ workspaceId: WS, rollupUntil: 1.5 }),
      JSON.stringify({ workspaceId: WS, rollupUntil: '1' }),
      JSON.stringify({ workspaceId: WS, rollupUntil: 1, step: 0 }),
      'not json',
      JSON.stringify({ workspaceId: WS, rollupUntil: 1, pad: 'x'.repeat(1024) }),
    ])
      expect(parseStatsRollupMessage(body)).toBeUndefined();
    expect(() => formatStatsRollupMessage({ workspaceId: 'ws_x', rollupUntil: 1 })).toThrow();
  });
});
