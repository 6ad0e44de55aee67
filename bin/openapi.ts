import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from './openapi/document.ts';

/** The committed form of the document: what `npm run openapi` writes and the stale-document test compares. */
export function openApiText(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

if (import.meta.main) {
  writeFileSync(new URL('../docs/openapi.json', import.meta.url), openApiText());
  process.stdout.write('docs/openapi.json written\n');
}
