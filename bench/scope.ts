import type { makeCallRecorder } from './calls.ts';
import { measureScopeCpu, type ScopeCpuResults } from './cpu.ts';
import { measureMatcher, type MatcherFigure } from './scope-matcher.ts';
import { measureScopeReads, type ScopeLocalStack, type ScopeRead, type ScopeReadResults } from './scope-reads.ts';

/**
 * What an access key's permissions cost (decisions.md, "Permissions of access keys"): the CPU of 50 rules against a
 * key without rules (bench/scope-cpu-child.ts), the reads of a key scoped to one environment against the API key's
 * (bench/scope-reads.ts), and one decision's CPU when its patterns must be matched (bench/scope-matcher.ts).
 * `BENCH_ONLY=scope npm run bench` runs these alone.
 */
export interface ScopeResults {
  notes: Record<'fiftyRulesCpu' | 'scopedReads' | 'matcher', string>;
  fiftyRulesCpu: ScopeCpuResults;
  scopedReads: ScopeReadResults;
  matcher: MatcherFigure[];
}

const NOTES: ScopeResults['notes'] = {
  fiftyRulesCpu:
    "the secrets handler's own work (DynamoDB answered in memory from each key's recording) with an access key of 50 rules (the matching one last, 20 patterns in some lists) against one without rules; goal ratio ≤ 1.05; calls must be identical (bookkeeping that falls by the clock aside: rate-limit leases, lastUsedAt)",
  scopedReads:
    "1,000 secrets in 20 environments; a key that reads one of them against the API key: billed RRU, DynamoDB requests and items read per request, warm; a scoped search reads only its environment's GSI4 partition, the API key's the workspace's GSI1",
  matcher:
    "CPU µs per decision of a freshly compiled policy over keys it has not decided yet (no cached decision: the key's patterns are matched each time), median of 9 rounds of 4,000 keys, in the bench's process; steps: shared/platform/glob.ts's globSteps of the (last) pattern on the first key; goal (decisions.md, Hardening v1.3) well under 1,000 µs for 20 wildcards on 256 characters",
};

/** Both measurements: the CPU one in a child process over the stack's DynamoDB Local, the reads through the stack. */
export async function measureScope(stack: ScopeLocalStack, recorder: ReturnType<typeof makeCallRecorder>): Promise<ScopeResults> {
  // A DynamoDB Local of its own, fresh, as the CPU phase's (the stack's is slow after the load test).
  const fiftyRulesCpu = await measureScopeCpu();
  const scopedReads = await measureScopeReads(stack, recorder);
  return { notes: NOTES, fiftyRulesCpu, scopedReads, matcher: measureMatcher() };
}

const readCells = (r: ScopeRead) =>
  `${r.dynamodbRequests} | ${r.billedReadUnits} | ${r.itemsRead} | ${r.answered}${r.hasMore ? ' (more)' : ''} | ${r.operations.join(', ')}`;

/** The printed lines: one per operation for the 50 rules, one per read and credential for the scoped key. */
export function scopeTable(results: ScopeResults): string {
  const rows = [
    `50-rule access key against one without rules: ${results.notes.fiftyRulesCpu}`,
    '| operation | own CPU ms, no rules | own CPU ms, 50 rules | ratio | calls identical | bookkeeping req/req (none / 50) | read units/req from answers (none / 50) | bytes read/req (none / 50) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const [name, o] of Object.entries(results.fiftyRulesCpu)) {
    rows.push(
      `| ${name} | ${o.ownCpuMsPerRequest.unscoped} | ${o.ownCpuMsPerRequest.fiftyRules} | ${o.ratio} | ${o.callsIdentical ? 'yes' : 'NO'} | ${o.calls.unscoped.bookkeepingPerRequest} / ${o.calls.fiftyRules.bookkeepingPerRequest} | ${o.reads.unscoped.readUnitsPerRequest} / ${o.reads.fiftyRules.readUnitsPerRequest} | ${o.reads.unscoped.bytesPerRequest} / ${o.reads.fiftyRules.bytesPerRequest} |`,
    );
  }
  const r = results.scopedReads;
  rows.push(
    '',
    `scoped reads (key sees ${r.workspace.scopedKeySees}): ${results.notes.scopedReads}`,
    '| read | credential | DynamoDB req | billed RRU | items read | answered | operations |',
    '|---|---|---|---|---|---|---|',
  );
  const reads: [string, { apiKey: ScopeRead; scopedKey: ScopeRead }][] = [
    ['list its environment, limit 50', r.listEnvironment],
    ['search, limit 50', r.search],
    [
      `search q=${r.workspace.q} (${r.workspace.matchesPerEnvironment} an environment, ${r.workspace.matchesPerEnvironment * r.workspace.environments} in all), limit 50`,
      r.searchQ,
    ],
  ];
  for (const [what, pair] of reads)
    rows.push(`| ${what} | API key | ${readCells(pair.apiKey)} |`, `| ${what} | scoped key | ${readCells(pair.scopedKey)} |`);
  rows.push(
    '',
    `one decision that matches patterns: ${results.notes.matcher}`,
    '| patterns and key | patterns | key length | steps | µs per decision |',
    '|---|---|---|---|---|',
  );
  for (const m of results.matcher) rows.push(`| ${m.what} | ${m.patterns} | ${m.keyLength} | ${m.steps} | ${m.usPerDecision} |`);
  return rows.join('\n');
}
