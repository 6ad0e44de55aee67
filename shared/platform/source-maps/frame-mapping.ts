import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * An error's stack frames at their TypeScript lines, as `--enable-source-maps` prints them, done late. The functions
 * run without that flag: with it, Node reads and decodes every bundle's source map while the bundle loads, 10-12 ms of
 * each cold start (issue 52), for the few containers that ever log an unexpected error. This module loads with the
 * first such error (the logger's mappedFramesOf); it reads a bundle's map on the first frame that needs it, with
 * Node's own SourceMap (node:module), and keeps it for the container's next errors. Frames outside a bundle (Node's
 * own, the local stack's TypeScript) and bundles without a map are left as V8 gave them. Written here because no
 * library maps a stack string on demand without also replacing Error.prepareStackTrace for every error.
 */

/** A bundle's map, or null when it has none or it cannot be read (a missing file among them): read once per file and container. */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(file, map);
  }
  return map;
}

/** `    at name (file:line:col)` or `    at file:line:col`, where file is a bundle's `.mjs` (a path or a file URL). */
const FRAME = /^(\s+at (?:async )?)(?:(.+?) \()?((?:file:\/\/)?\/[^():]+\.mjs):(\d+):(\d+)\)?$/;

interface Frame {
  prefix: string;
  name: string | undefined;
  file: string;
  line: number;
  column: number;
}

function parse(text: string): Frame | undefined {
  const match = FRAME.exec(text);
  if (!match) return undefined;
  const location = match[3]!;
  const file = location.startsWith('file://') ? fileURLToPath(location) : location;
  return { prefix: match[1]!, name: match[2], file, line: Number(match[4]), column: Number(match[5]) };
}

/** The source position of a bundle position, with the original name the map gives it, if any. */
function original(frame: Frame): { source: string; line: number; column: number; name: string | undefined } | undefined {
  const entry = mapOf(frame.file)?.findEntry(frame.line - 1, frame.column - 1);
  if (!entry || !('originalSource' in entry)) return undefined;
  const source = resolve(dirname(frame.file), entry.originalSource);
  // Node 24 gives the mapping's name too; @types/node does not declare it yet.
  const { name } = entry as { name?: string };
  return { source, line: entry.originalLine + 1, column: entry.originalColumn + 1, name };
}

/**
 * Maps each bundle frame to its TypeScript position. A function's original name is the one the map gives its call in
 * the next frame down (the caller), when that caller is in the same bundle, as Node does; otherwise the minified name.
 */
function mapLines(lines: string[]): string[] {
  const frames = lines.map(parse);
  const origins = frames.map((frame) => frame && original(frame));
  return lines.map((text, i) => {
    const frame = frames[i];
    const at = origins[i];
    if (!frame || !at) return text;
    const name = (frames[i + 1]?.file === frame.file ? origins[i + 1]?.name : undefined) ?? frame.name;
    const place = `${at.source}:${at.line}:${at.column}`;
    return name ? `${frame.prefix}${name} (${place})` : `${frame.prefix}${place}`;
  });
}

/**
 * `frames` (lines of `    at …`, as the logger takes them from an error: never its message) with each bundle frame
 * at its TypeScript position; a frame that cannot be mapped, or any other line, as it is.
 */
export function mapFrames(frames: string): string {
  try {
    return mapLines(frames.split('\n')).join('\n');
  } catch {
    return frames;
  }
}
