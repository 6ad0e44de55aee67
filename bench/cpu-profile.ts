import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Summarizes a V8 .cpuprofile (from `node bench/cpu.ts --profile …`): self time by function and by area (an npm
 * package, a file of this project, or V8/Node internals), as a share of all samples.
 * `node bench/cpu-profile.ts file.cpuprofile [top]`; `--diff handler floor [requests] [top]` compares two by function
 * and area; `--own handler floor [requests] [top]` charges each sample to the project function it runs under.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The area of a script: `pkg:<npm package>`, a project-relative file, or `(node)`/`(v8)` for internals. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(v8)';
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packaged) return `pkg:${packaged[1]}`;
  if (url.startsWith('node:')) return '(node)';
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

/** Self time in ms and share of all samples, by function and by area, largest first. */
export function summarizeProfile(profile: CpuProfile) {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byNode.get(id)!.callFrame;
    const area = areaOf(url, functionName);
    const name = `${functionName || '(anonymous)'} ${area}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
    areas.set(area, (areas.get(area) ?? 0) + us);
  }
  const rank = (map: Map<string, number>) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, percent: Math.round((us / total) * 1000) / 10 }));
  return { totalMs: Math.round(total / 1000), functions: rank(functions), areas: rank(areas) };
}

const percentOfBusy = (summary: ReturnType<typeof summarizeProfile>) => {
  const busy = summary.functions.filter((f) => f.name !== '(idle) (idle)').reduce((sum, f) => sum + f.ms, 0);
  return (ms: number) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`;
};

/** Self time per request of each area and function in `a` and in `b` (idle left out), largest difference first. */
function diff(
  a: ReturnType<typeof summarizeProfile>,
  b: ReturnType<typeof summarizeProfile>,
  requests: number,
  key: 'areas' | 'functions',
  top: number,
): string[] {
  const names = new Set([...a[key], ...b[key]].map((x) => x.name));
  const msOf = (list: { name: string; ms: number }[], name: string) => list.find((x) => x.name === name)?.ms ?? 0;
  return [...names]
    .filter((name) => name !== '(idle)' && name !== '(idle) (idle)')
    .map((name) => ({ name, a: msOf(a[key], name) / requests, b: msOf(b[key], name) / requests }))
    .sort((x, y) => y.a - y.b - (x.a - x.b))
    .slice(0, top)
    .map((x) => `${(x.a - x.b).toFixed(3).padStart(7)}  ${x.a.toFixed(3).padStart(6)}  ${x.b.toFixed(3).padStart(6)}  ${x.name}`);
}

const OUTSIDE = '(SDK and Node, no project frame on the stack)';

/**
 * Self time in ms charged to the innermost frame of this project's own code on each sample's stack (what it calls
 * synchronously in the SDK and in Node included), `(bench)` for the bench's harness (the floor's replay), and what
 * runs with no project frame above it (the SDK's and Node's asynchronous work, after an await) to `OUTSIDE`.
 */
export function chargeToOwnCode(profile: CpuProfile): Map<string, number> {
  const byNode = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  // A node's label is the same for every sample of it: worked out once per node.
  const labels = new Map<number, string>();
  const labelOf = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url, lineNumber } = byNode.get(at)!.callFrame;
      const area = areaOf(url, functionName);
      if (area.startsWith('bench/')) return '(bench)';
      if (url.startsWith('file:') && !area.startsWith('pkg:')) return `${functionName || '(anonymous)'} ${area}:${lineNumber + 1}`;
    }
    const { functionName } = byNode.get(id)!.callFrame;
    return ['(garbage collector)', '(program)', '(idle)'].includes(functionName) ? functionName : OUTSIDE;
  };
  const label = (id: number) => labels.get(id) ?? labels.set(id, labelOf(id)).get(id)!;
  const charged = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const name = label(id);
    charged.set(name, (charged.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  charged.delete('(idle)');
  return charged;
}

/** `chargeToOwnCode` of a handler's and a floor's profile, ms per request side by side, largest first. */
function ownCodeTable(handler: CpuProfile, floor: CpuProfile, requests: number, top: number): string[] {
  const [a, b] = [chargeToOwnCode(handler), chargeToOwnCode(floor)];
  const per = (map: Map<string, number>, name: string) => (map.get(name) ?? 0) / requests;
  const total = (map: Map<string, number>) => [...map.values()].reduce((sum, ms) => sum + ms, 0) / requests;
  const rows = [...new Set([...a.keys(), ...b.keys()])].sort((x, y) => per(a, y) + per(b, y) - per(a, x) - per(b, x));
  const line = (h: number, f: number, name: string) => `${h.toFixed(3).padStart(7)}  ${f.toFixed(3).padStart(6)}  ${name}`;
  return [
    'handler   floor  (ms per request)',
    line(total(a), total(b), 'all'),
    ...rows.slice(0, top).map((n) => line(per(a, n), per(b, n), n)),
  ];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const load = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const read = (file: string) => summarizeProfile(load(file));
  if (args[0] === '--own') {
    // node bench/cpu-profile.ts --own handler.cpuprofile floor.cpuprofile [requests] [top]: charged to the own code.
    const [, handler, floor, requests = '3000', top = '40'] = args;
    process.stdout.write(`${ownCodeTable(load(handler!), load(floor!), Number(requests), Number(top)).join('\n')}\n`);
  } else if (args[0] === '--diff') {
    // node bench/cpu-profile.ts --diff handler.cpuprofile floor.cpuprofile [requests] [top]: ms per request, handler - floor.
    const [, handler, floor, requests = '3000', top = '30'] = args;
    const [a, b] = [read(handler!), read(floor!)];
    const header = '  extra  handler  floor  (ms per request)';
    process.stdout.write(
      `${[header, ...diff(a, b, Number(requests), 'areas', Number(top)), '', header, ...diff(a, b, Number(requests), 'functions', Number(top))].join('\n')}\n`,
    );
  } else {
    const [file, top = '25'] = args;
    const summary = read(file!);
    const share = percentOfBusy(summary);
    const lines = [`total ${summary.totalMs} ms sampled; shares of the non-idle samples`, '', 'self time by area:'];
    for (const a of summary.areas.filter((x) => x.name !== '(idle)').slice(0, Number(top))) lines.push(`${share(a.ms)}  ${a.name}`);
    lines.push('', 'self time by function:');
    for (const f of summary.functions.filter((x) => x.name !== '(idle) (idle)').slice(0, Number(top)))
      lines.push(`${share(f.ms)}  ${f.name}`);
    process.stdout.write(`${lines.join('\n')}\n`);
  }
}
