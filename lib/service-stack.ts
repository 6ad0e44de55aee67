import { RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { ApiConstruct, type JwtSettings } from './api.ts';
import { DataConstruct } from './data.ts';
import { EncryptionConstruct } from './encryption.ts';

export interface ServiceStackProps extends StackProps {
  /** Prefixes names that must be unique per account and region (the KMS alias). @default 'prod' */
  readonly stage?: string;
  /** @default API tokens only */
  readonly jwt?: JwtSettings;
  /** Reveals per minute per credential. @default 120 */
  readonly revealsPerMinute?: number;
  /** @default { rateLimit: 100, burstLimit: 200 } */
  readonly apiThrottle?: { readonly rateLimit: number; readonly burstLimit: number };
  /** One of CloudWatch Logs' retention periods. @default 30 */
  readonly logRetentionDays?: number;
  /** `destroy` is for throwaway stages: the table, key and logs go with the stack. @default 'retain' */
  readonly removalPolicy?: 'retain' | 'destroy';
}

/** The whole secrets service of one stage: table, KMS key and HTTP API with its functions. */
export class ServiceStack extends Stack {
  readonly data: DataConstruct;
  readonly encryption: EncryptionConstruct;
  readonly api: ApiConstruct;

  constructor(scope: Construct, id: string, props: ServiceStackProps = {}) {
    super(scope, id, props);
    const stage = props.stage ?? 'prod';
    const removalPolicy = props.removalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN;
    this.data = new DataConstruct(this, 'Data', { removalPolicy });
    this.encryption = new EncryptionConstruct(this, 'Encryption', { stage, removalPolicy });
    this.api = new ApiConstruct(this, 'Api', {
      table: this.data.table,
      secretsKey: this.encryption.key,
      revealsPerMinute: props.revealsPerMinute,
      jwt: props.jwt,
      throttle: props.apiThrottle ?? { rateLimit: 100, burstLimit: 200 },
      logRetention: toRetentionDays(props.logRetentionDays ?? 30),
      removalPolicy,
    });
  }
}

/** Maps a day count to CloudWatch Logs' retention, which accepts only certain values (1, 3, 5, 7, 14, 30, ...). */
export function toRetentionDays(days: number): RetentionDays {
  const allowed = Object.values(RetentionDays).filter((value) => typeof value === 'number');
  if (!allowed.includes(days)) {
    throw new Error(`logRetentionDays must be one of ${allowed.join(', ')}; got ${days}`);
  }
  return days as RetentionDays;
}
