import * as z from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';

/**
 * Builds an answer's `data` through the route's response schema, as `z.parse(schema, data)` does, a few times
 * faster: each schema is compiled once into a plain function that checks the same rules and keeps only the named
 * fields. zod's generic parse (a payload, an issue list and a check loop per field) was the largest part of a list
 * answer's CPU. Anything the compiled function does not know (a refinement, a length check, a record, unknown) is
 * left to zod for the whole schema, and any value it does not accept goes to zod too, which then answers or throws
 * exactly as before: the fast path only ever returns what zod would.
 */
export function buildAnswer(schema: $ZodType, data: unknown): unknown {
  let build = compiled.get(schema);
  if (!build) compiled.set(schema, (build = compileAnswer(schema)));
  return build(data);
}

const compiled = new WeakMap<$ZodType, (data: unknown) => unknown>();

/** Marks a value the compiled function does not accept (zod then decides). */
const REFUSED = Symbol('refused');
type Project = (value: unknown) => unknown;

/** The schema's answer builder: compiled where every part of it is understood, zod's parse otherwise. */
export function compileAnswer(schema: $ZodType): (data: unknown) => unknown {
  const project = projector(schema);
  if (!project) return (data) => z.parse(schema, data);
  return (data) => {
    const answer = project(data);
    return answer === REFUSED ? z.parse(schema, data) : answer;
  };
}

interface Def {
  type: string;
  checks?: { _zod: { def: { check?: string; format?: string; pattern?: unknown } } }[];
  coerce?: boolean;
  format?: string;
  innerType?: $ZodType;
  element?: $ZodType;
  shape?: Record<string, $ZodType>;
  catchall?: unknown;
}

/** A function that answers what zod would for the schema, or REFUSED; undefined for a schema it cannot compile. */
function projector(schema: $ZodType): Project | undefined {
  const def = schema._zod.def as unknown as Def;
  if (def.coerce) return undefined;
  if (def.type !== 'string' && def.checks?.length) return undefined;
  switch (def.type) {
    case 'string':
      return stringProjector(def);
    case 'number':
      if (def.format === 'safeint') return (v) => (Number.isSafeInteger(v) ? v : REFUSED);
      return def.format === undefined ? (v) => (typeof v === 'number' && Number.isFinite(v) ? v : REFUSED) : undefined;
    case 'boolean':
      return (v) => (typeof v === 'boolean' ? v : REFUSED);
    case 'enum':
    case 'literal': {
      const values = schema._zod.values!;
      return (v) => (values.has(v as never) ? v : REFUSED);
    }
    case 'nullable': {
      const inner = projector(def.innerType!);
      return inner && ((v) => (v === null ? null : inner(v)));
    }
    case 'array':
      return arrayProjector(def);
    case 'object':
      return objectProjector(def);
    default:
      return undefined;
  }
}

/** A string and its format checks (`z.regex`, `z.iso.datetime`): zod tests exactly their patterns. */
function stringProjector(def: Def): Project | undefined {
  const patterns: RegExp[] = [];
  for (const check of def.checks ?? []) {
    const { check: kind, format, pattern } = check._zod.def;
    if (kind !== 'string_format' || (format !== 'regex' && format !== 'datetime') || !(pattern instanceof RegExp)) return undefined;
    patterns.push(pattern);
  }
  return (v) => {
    if (typeof v !== 'string') return REFUSED;
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      if (!pattern.test(v)) return REFUSED;
    }
    return v;
  };
}

function arrayProjector(def: Def): Project | undefined {
  const element = projector(def.element!);
  if (!element) return undefined;
  return (v) => {
    if (!Array.isArray(v)) return REFUSED;
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) if ((out[i] = element(v[i])) === REFUSED) return REFUSED;
    return out;
  };
}

/** `z.object` (not strict or loose): the shape's fields in the shape's order, every other field dropped. */
function objectProjector(def: Def): Project | undefined {
  if (def.catchall !== undefined) return undefined;
  const fields: [string, Project][] = [];
  for (const [key, field] of Object.entries(def.shape!)) {
    const project = projector(field);
    if (!project) return undefined;
    fields.push([key, project]);
  }
  return (v) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return REFUSED;
    const out: Record<string, unknown> = {};
    for (const [key, project] of fields) {
      if ((out[key] = project((v as Record<string, unknown>)[key])) === REFUSED) return REFUSED;
    }
    return out;
  };
}
