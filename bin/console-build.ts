import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { API_KEY_AUTHORITY, machineAuthority, mayCall, roleAuthority } from '../shared/access/index.ts';
import type { Authority } from '../shared/platform/principal.ts';
import { ROLES } from '../shared/platform/roles.ts';
import { CONSOLE_BASE } from '../shared/platform/routes.ts';

/**
 * Builds the web console (console/): esbuild bundles console/src/main.tsx for browsers into content-hashed files
 * under `assets/` (the script, its CSS, and the chunks of views loaded later), and writes `index.html` naming them.
 * No inline script or style, so the pages run under `script-src 'self'`. Answers what the first load fetches and
 * its gzipped size, the console's budget (issue 28: at most 100 KB of compressed JavaScript and CSS).
 */

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));

export interface ConsoleBuild {
  outdir: string;
  /** Every file written, relative to `outdir`. */
  files: string[];
  /** The script and stylesheet `index.html` loads, and the chunks the script imports statically. */
  firstLoad: string[];
  firstLoadGzipBytes: number;
}

/** What the console offers a credential (console/src/session.ts `Offers`): the controls it shows. */
interface Offers {
  reveal: boolean;
  write: boolean;
  delete: boolean;
  admin: boolean;
}

/**
 * The server's role table (shared/access/permissions.ts) as the console needs it: the roles weakest first, and what each
 * role, an API key and a machine token with the default rules may do, asked of their compiled policies as the README's
 * permission table asks them. The build writes it into the bundle (`__CREDENTIAL_TABLE__`), so the console keeps no
 * copy of the table and imports no server code.
 */
export function credentialTable(): { roles: string[]; offers: Record<string, Offers> } {
  const offers = (authority: Authority): Offers => ({
    reveal: authority.policy.mayAnywhere('reveal', 'any-project', 'any-environment'),
    write: authority.policy.mayAnywhere('write', 'any-project', 'any-environment'),
    delete: authority.policy.mayAnywhere('delete', 'any-project', 'any-environment'),
    admin: mayCall(authority, 'admin'),
  });
  const roles = Object.fromEntries(ROLES.map((role) => [role, offers(roleAuthority(role))]));
  return { roles: [...ROLES], offers: { ...roles, api_key: offers(API_KEY_AUTHORITY), machine: offers(machineAuthority()) } };
}

export async function buildConsole(outdir: string = join(ROOT, 'console', 'dist')): Promise<ConsoleBuild> {
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, 'assets'), { recursive: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['console/src/main.tsx'],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    define: { __CREDENTIAL_TABLE__: JSON.stringify(credentialTable()) },
    outdir: join(outdir, 'assets'),
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    logLevel: 'silent',
  });
  const outputs = result.metafile.outputs;
  const relative = (path: string) => `assets/${basename(path)}`;
  const [entryPath, entry] = Object.entries(outputs).find(([, output]) => output.entryPoint === 'console/src/main.tsx')!;
  const css = entry.cssBundle;
  // What the first load fetches: the entry, its stylesheet, and every chunk it imports statically (not `import()`).
  const firstLoad = new Set<string>([entryPath, ...(css ? [css] : [])]);
  const visit = (path: string) => {
    for (const imported of outputs[path]?.imports ?? []) {
      if (imported.kind === 'import-statement' && !firstLoad.has(imported.path)) firstLoad.add(imported.path), visit(imported.path);
    }
  };
  visit(entryPath);
  const html = readFileSync(join(ROOT, 'console', 'index.html'), 'utf8')
    .replace('%JS%', `${CONSOLE_BASE}/${relative(entryPath)}`)
    .replace('%CSS%', css ? `${CONSOLE_BASE}/${relative(css)}` : '');
  writeFileSync(join(outdir, 'index.html'), html);
  const files = ['index.html', ...Object.keys(outputs).map(relative)];
  const firstLoadGzipBytes = [...firstLoad].reduce((sum, path) => sum + gzipSync(readFileSync(join(ROOT, path))).length, 0);
  return { outdir, files, firstLoad: [...firstLoad].map(relative), firstLoadGzipBytes };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const built = await buildConsole(process.argv[2] ? resolve(process.argv[2]) : undefined);
  process.stdout.write(
    `console built in ${built.outdir}: ${built.files.length} files; first load ${built.firstLoad.join(', ')}, ${built.firstLoadGzipBytes} bytes gzipped\n`,
  );
}
