import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Summarizes a V8 .cpuprofile (from `node bench/cpu.ts --profile …`): self time by function and by area (an npm
 * package, a file of this project, or V8/Node internals), as a share of all samples.
 * `node bench/cpu-profile.ts file.cpuprofile [top]`.
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

/** The area of a script: `pkg:<npm package>`, a project-relative file, or `(node)`/`(v8)` for internals. */
export function areaOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(v8)';
  const packaged = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (packaged) return `pkg:${packaged[1]}`;
  if (url.startsWith('node:')) return '(node)';
  const root = fileURLToPath(new URL('..', import.meta.url));
  const path = url.startsWith('file:') ? fileURLToPath(url) : url;
  return path.startsWith(root) ? path.slice(root.length) : path;
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const read = (file: string) => summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  if (args[0] === '--diff') {
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
