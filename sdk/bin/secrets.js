#!/usr/bin/env node
// The `secrets` command: the CLI is built to dist/ (`npm run build`, run by the repository's `npm install`).
import '../dist/cli-main.js';
