import type { DestinationFactory } from './destination.ts';

/**
 * The destinations of syncs (decisions.md v1.4, "Syncs"): `makeDestination` picks the module of a configuration's
 * type and loads it on first use, so a function pushing only to GitHub never loads the AWS SDK clients, and one
 * pushing only to AWS never loads libsodium.
 */
export {
  DestinationError,
  type DestinationContext,
  type DestinationFactory,
  type PushedValue,
  type SyncDestination,
} from './destination.ts';

/** Makes the destination of a sync's configuration (its module imported on first use). */
export const makeDestination: DestinationFactory = async (destination, context) => {
  switch (destination.type) {
    case 'github-actions':
      return (await import('./github-actions.ts')).makeGithubActionsDestination(destination, context);
    case 'aws-ssm':
      return (await import('./aws-ssm.ts')).makeAwsSsmDestination(destination, context);
    case 'aws-secrets-manager':
      return (await import('./aws-secrets-manager.ts')).makeAwsSecretsManagerDestination(destination, context);
  }
};
