import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

/**
 * The web console calls the API through the SDK's typed client: its entry `@secrets-service/sdk/client` (the built
 * package, as the console's bundler sees it) must bundle for a browser, with no Node built-in on its path (esbuild
 * refuses to resolve one for the browser platform).
 */
describe('the SDK client entry for browsers', () => {
  it('bundles for the browser platform without a Node built-in', async () => {
    const result = await build({
      entryPoints: ['@secrets-service/sdk/client'],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      splitting: true,
      outdir: '/tmp/sdk-browser-entry',
      logLevel: 'silent',
    });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.filter((input) => input.startsWith('node:'))).toEqual([]);
    expect(inputs).toContain('sdk/dist/client.js');
    // The package's `browser` field swaps the IAM login for a module that refuses it: no AWS signer, no credential chain.
    expect(inputs).toContain('sdk/dist/aws-iam-browser.js');
    expect(
      inputs.some(
        (input) => input.includes('@smithy/signature-v4') || input.includes('credential-providers') || input.endsWith('aws-iam.js'),
      ),
    ).toBe(false);
  });
});
