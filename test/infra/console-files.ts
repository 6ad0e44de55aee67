import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import type { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { expect } from 'vitest';
import type { Resource } from './synth.ts';

/** What the console tests read of a synthesized app. */
export type Synthesized = { app: App; template: Template };

/** The viewer-request function's code, run as CloudFront runs it, on a request for `uri`. */
export function viewerRequest(
  code: string,
  uri: string,
): { uri?: string; statusCode?: number; headers?: Record<string, { value: string }> } {
  const handler = runInNewContext(`${code}\nhandler;`) as (event: unknown) => ReturnType<typeof viewerRequest>;
  return handler({
    version: '1.0',
    context: { eventType: 'viewer-request' },
    request: { method: 'GET', uri, querystring: {}, headers: {}, cookies: {} },
  });
}

/** A template value as text: Refs are given values by `refs`, the rest written `<Id.Attr>`. */
export function render(value: unknown, refs: Record<string, string> = {}): string {
  if (typeof value === 'string') return value;
  const token = value as { Ref?: string; 'Fn::GetAtt'?: string[]; 'Fn::Join'?: [string, unknown[]] };
  if (token.Ref) return refs[token.Ref] ?? `<${token.Ref}>`;
  if (token['Fn::GetAtt']) return `<${token['Fn::GetAtt'].join('.')}>`;
  if (token['Fn::Join']) return token['Fn::Join'][1].map((part) => render(part, refs)).join(token['Fn::Join'][0]);
  throw new Error(`Cannot render ${JSON.stringify(value)}`);
}

/** A Content-Security-Policy as directive → sources. */
export function directives(csp: string): Record<string, string> {
  return Object.fromEntries(csp.split(/;\s*/).map((part) => [part.split(' ')[0]!, part.split(' ').slice(1).join(' ')]));
}

/** The console deployment that writes under `prefix`, and its source folders in the cloud assembly. */
export function deployment(
  from: Synthesized,
  prefix: string,
): { id: string; resource: Resource & { DependsOn?: string[] }; dirs: string[] } {
  const found = Object.entries(from.template.findResources('Custom::CDKBucketDeployment')).filter(
    ([, r]) => r.Properties.DestinationBucketKeyPrefix === prefix,
  );
  expect(found).toHaveLength(1);
  const [id, resource] = found[0] as [string, Resource & { DependsOn?: string[] }];
  const dirs = (resource.Properties.SourceObjectKeys as string[]).map((key) => join(from.app.outdir, `asset.${key.replace(/\.zip$/, '')}`));
  return { id, resource, dirs };
}

/** A deployed file with its deploy-time markers replaced by the template values they stand for. */
export async function deployedFile(from: Synthesized, name: string): Promise<string> {
  const { resource, dirs } = deployment(from, 'console/');
  const index = (await Promise.all(dirs.map((dir) => readdir(dir)))).findIndex((files) => files.includes(name));
  expect(index).toBeGreaterThanOrEqual(0);
  const markers = resource.Properties.SourceMarkers[index] as Record<string, unknown>;
  let text = await readFile(join(dirs[index]!, name), 'utf8');
  for (const [marker, value] of Object.entries(markers)) text = text.replaceAll(marker, render(value));
  return text;
}
