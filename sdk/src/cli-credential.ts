import { UsageError } from './cli-context.js';

/**
 * A credential a command needs (a sync's GitHub token, an audit stream's HEC token or API key): from stdin when
 * `--<flag>` is given, else from the variable `envName`; never from the command line, where `ps` and the shell's
 * history see it. `needs` opens the error when neither holds one ("a GitHub sync needs its token").
 */
export async function readCredential(flag: string, fromStdin: boolean | undefined, envName: string, needs: string): Promise<string> {
  if (!fromStdin) {
    const value = process.env[envName]?.trim();
    if (!value) throw new UsageError(`${needs}: --${flag}, or ${envName}`);
    return value;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const value = Buffer.concat(chunks).toString('utf8').trim();
  if (!value) throw new UsageError(`--${flag}: stdin held nothing`);
  return value;
}
