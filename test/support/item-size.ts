/**
 * The size DynamoDB bills an item at (developer guide, "Item sizes and formats"): attribute names and values in
 * UTF-8 bytes; a number about 1 byte per 2 significant digits plus 1; null and booleans 1 byte; a list or map 3
 * bytes plus 1 per element plus its elements (a map's keys count as names).
 */
export function itemSize(item: Record<string, unknown>): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) size += Buffer.byteLength(name) + valueSize(value);
  return size;
}

function valueSize(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number') {
    const digits = String(Math.abs(value)).replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length || 1;
    return Math.ceil(digits / 2) + 1;
  }
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, element) => sum + 1 + valueSize(element), 0);
  if (typeof value === 'object') {
    return 3 + Object.entries(value as Record<string, unknown>).reduce((sum, [name, element]) => sum + 1 + Buffer.byteLength(name) + valueSize(element), 0);
  }
  throw new Error(`no DynamoDB size for a ${typeof value}`);
}

/** Write units of writing an item of `bytes` (1 per KB, rounded up; at least 1). */
export const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
