import { CfnOutput, RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TABLE_DEFINITION } from '../shared/platform/store/table.ts';

export interface DataConstructProps {
  /** @default RemovalPolicy.RETAIN, which also turns deletion protection on */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * The service's single DynamoDB table, built from `TABLE_DEFINITION` so that it cannot drift from the table the
 * local stack creates.
 */
export class DataConstruct extends Construct {
  readonly table: Table;

  constructor(scope: Construct, id: string, props: DataConstructProps = {}) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.RETAIN;
    this.table = new Table(this, 'Table', {
      partitionKey: { name: TABLE_DEFINITION.partitionKey, type: AttributeType.STRING },
      sortKey: { name: TABLE_DEFINITION.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      stream: StreamViewType[TABLE_DEFINITION.streamViewType],
      timeToLiveAttribute: TABLE_DEFINITION.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
      deletionProtection: removalPolicy === RemovalPolicy.RETAIN,
    });
    for (const gsi of TABLE_DEFINITION.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: gsi.indexName,
        partitionKey: { name: gsi.partitionKey, type: AttributeType.STRING },
        sortKey: { name: gsi.sortKey, type: AttributeType.STRING },
        ...(gsi.projection.type === 'INCLUDE'
          ? { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...gsi.projection.nonKeyAttributes] }
          : { projectionType: ProjectionType.ALL }),
      });
    }
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'The table (admin CLI --table)' }).overrideLogicalId(
      'TableName',
    );
  }
}
