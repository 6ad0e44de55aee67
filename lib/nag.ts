import { Stack, Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges cdk-nag's AwsSolutions-IAM5 finding for one wildcard resource ARN on `scope`. The finding's id spells
 * the ARN as cdk-nag renders it (`Ref`s as `<AWS::Region>`, `GetAtt`s as `<Id.Arn>`), and that depends on whether
 * the stack's account and region are known at synth, so it is computed from the ARN rather than written out.
 */
export function acknowledgeWildcardResource(scope: IConstruct, arn: string, reason: string): void {
  Validations.of(scope).acknowledge({ id: `AwsSolutions-IAM5[Resource::${nagSpelling(Stack.of(scope).resolve(arn))}]`, reason });
}

function nagSpelling(value: unknown): string {
  if (typeof value === 'string') return value;
  const token = value as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]]; 'Fn::Sub'?: string };
  if (token.Ref) return `<${token.Ref}>`;
  // The CDK assets bucket's name (`cdk-<qualifier>-assets-${AWS::AccountId}-${AWS::Region}`) comes as a Fn::Sub.
  if (typeof token['Fn::Sub'] === 'string') return token['Fn::Sub'].replace(/\$\{/g, '<').replace(/\}/g, '>');
  if (token['Fn::GetAtt']) return `<${token['Fn::GetAtt'].join('.')}>`;
  if (token['Fn::Join']) return token['Fn::Join'][1].map(nagSpelling).join(token['Fn::Join'][0]);
  throw new Error(`Cannot spell ${JSON.stringify(value)} as cdk-nag does`);
}
