import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { CONSOLE_BASE } from '../../shared/platform/routes.ts';

/**
 * The web console on the local front (decisions.md, "Console"): under `/console/`, same origin as the API. Its
 * hashed assets from the build; `config.json` from the stack's settings; every other path under it `index.html`
 * (the console routes in the browser). Every answer carries the security headers: a Content-Security-Policy with
 * `script-src 'self'` and `frame-ancestors 'none'`, `X-Content-Type-Options: nosniff`, no referrer, no framing.
 */

export interface ConsoleSite {
  /** The built console (bin/console-build.ts). */
  dir: string;
  /** What `/console/config.json` answers. */
  config: { apiUrl: string; issuer?: string; clientId?: string; resource?: string; roleClaim: string; defaultRole: string };
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** The console's headers; `connect-src` adds the identity provider (its discovery and token endpoints). */
export function consoleHeaders(site: Pick<ConsoleSite, 'config'>): Record<string, string> {
  const connect = [
    "'self'",
    ...(site.config.apiUrl ? [new URL(site.config.apiUrl).origin] : []),
    ...(site.config.issuer ? [new URL(site.config.issuer).origin] : []),
  ];
  return {
    'Content-Security-Policy': [
      "default-src 'self'",
      "script-src 'self'",
      "style-src 'self'",
      "img-src 'self' data:",
      `connect-src ${[...new Set(connect)].join(' ')}`,
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "form-action 'self'",
      "object-src 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  };
}

/** Answers a request under `/console`, or false when the path is not the console's (the API's routes go on). */
export function serveConsole(site: ConsoleSite, request: IncomingMessage, response: ServerResponse, path: string): boolean {
  if (path !== CONSOLE_BASE && !path.startsWith(`${CONSOLE_BASE}/`)) return false;
  const headers = consoleHeaders(site);
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { ...headers, Allow: 'GET, HEAD', 'Content-Type': 'text/plain' });
    response.end('Method Not Allowed');
    return true;
  }
  const rest = path.slice(CONSOLE_BASE.length + 1);
  if (rest === 'config.json') {
    response.writeHead(200, { ...headers, 'Content-Type': TYPES['.json']!, 'Cache-Control': 'no-store' });
    response.end(JSON.stringify(site.config));
    return true;
  }
  if (rest.startsWith('assets/')) {
    const file = normalize(rest);
    if (!file.startsWith('assets/') || file.includes('..')) return notFound(response, headers);
    try {
      const body = readFileSync(join(site.dir, file));
      response.writeHead(200, {
        ...headers,
        'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'public, max-age=31536000, immutable',
      });
      response.end(request.method === 'HEAD' ? undefined : body);
    } catch {
      notFound(response, headers);
    }
    return true;
  }
  // Any other address under /console is a view of the single-page app: its shell, never cached.
  response.writeHead(200, { ...headers, 'Content-Type': TYPES['.html']!, 'Cache-Control': 'no-store' });
  response.end(request.method === 'HEAD' ? undefined : readFileSync(join(site.dir, 'index.html')));
  return true;
}

function notFound(response: ServerResponse, headers: Record<string, string>): true {
  response.writeHead(404, { ...headers, 'Content-Type': 'text/plain' });
  response.end('Not Found');
  return true;
}
