import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ServiceStack } from '../lib/service-stack.ts';
import { propsFromContext } from './app-context.ts';
import { buildConsole } from './console-build.ts';

/**
 * The CDK app: one `SecretsService-<stage>` stack configured from context (`cdk synth -c stage=dev ...`; read and
 * checked by bin/app-context.ts, a malformed value stops the synth with the offending key named). The
 * cdk-nag AwsSolutions pack checks every synth: a finding that is not acknowledged (with its reason, next to the
 * resource in lib/) fails it. The web console is built (bin/console-build.ts) into the cloud assembly's folder
 * once the context is known to be good, and the stack deploys that build.
 */
async function main(): Promise<void> {
  const app = new App();
  const props = propsFromContext(app);
  const built = await buildConsole(join(app.outdir, 'console-build'));
  new ServiceStack(app, `SecretsService-${props.stage}`, { ...props, consoleDir: built.outdir });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  app.synth();
}

await main();
