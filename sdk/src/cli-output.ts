/** Prints data for a script (`--json`): the API's own records, indented. */
export function printJson(data: unknown): void {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
}

/**
 * Prints rows as aligned columns under a header line; an empty list prints nothing on stdout and says so on stderr
 * (`what` names the items: "no projects").
 */
export function printTable(header: string[], rows: string[][], what: string): void {
  if (rows.length === 0) {
    process.stderr.write(`secrets: no ${what}\n`);
    return;
  }
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  process.stdout.write(`${[header, ...rows].map(line).join('\n')}\n`);
}

/** Labelled lines (`label:  value`), the labels aligned; a value of several lines is indented under the first. */
export function printFields(fields: [string, string | string[]][]): void {
  const width = Math.max(...fields.map(([label]) => label.length)) + 2;
  const lines = fields.flatMap(([label, value]) => {
    const values = Array.isArray(value) ? value : [value];
    return values.map((text, i) => `${(i === 0 ? `${label}:` : '').padEnd(width)}${text}`);
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}
