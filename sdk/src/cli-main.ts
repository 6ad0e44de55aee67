/** The `secrets` command's entry (sdk/bin/secrets.js): the command line itself is `main` of cli.ts, importable by tests. */
import { main } from './cli.js';

await main(process.argv);
