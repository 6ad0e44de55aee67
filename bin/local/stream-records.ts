import type { _Record as StreamRecord, AttributeValue as SdkAttributeValue } from '@aws-sdk/client-dynamodb-streams';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';

/**
 * DynamoDB Local writes an empty map in a stream image as a bare `{}`, without its `M` (an empty list keeps its `L`),
 * where DynamoDB Streams on AWS, and so Lambda's event, say `{"M":{}}`. A value with no member set can only be that map,
 * and left bare it makes `unmarshall` throw "No value defined" on the whole image.
 */
function isBareEmptyMap(value: SdkAttributeValue): boolean {
  return Object.values(value).every((member) => member === undefined);
}

/**
 * Lambda delivers images as JSON: binary values base64-encoded, an empty map as `{"M":{}}`, everything else as
 * DynamoDB Streams returns it.
 */
export function toLambdaAttributeValue(value: SdkAttributeValue): AttributeValue {
  if (isBareEmptyMap(value)) return { M: {} };
  if (value.B !== undefined) return { B: Buffer.from(value.B).toString('base64') };
  if (value.BS !== undefined) return { BS: value.BS.map((item) => Buffer.from(item).toString('base64')) };
  if (value.L !== undefined) return { L: value.L.map(toLambdaAttributeValue) };
  if (value.M !== undefined) return { M: toLambdaImage(value.M) };
  return value as AttributeValue;
}

function toLambdaImage(image: Record<string, SdkAttributeValue>): Record<string, AttributeValue> {
  return Object.fromEntries(Object.entries(image).map(([name, value]) => [name, toLambdaAttributeValue(value)]));
}

/** One stream record as Lambda puts it in a DynamoDBStreamEvent (creation time in epoch seconds). */
export function toLambdaRecord(record: StreamRecord, streamArn: string): DynamoDBRecord {
  const data = record.dynamodb ?? {};
  const created = data.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName,
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    dynamodb: {
      ...(created ? { ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) } : {}),
      ...(data.Keys ? { Keys: toLambdaImage(data.Keys) } : {}),
      ...(data.NewImage ? { NewImage: toLambdaImage(data.NewImage) } : {}),
      ...(data.OldImage ? { OldImage: toLambdaImage(data.OldImage) } : {}),
      SequenceNumber: data.SequenceNumber,
      SizeBytes: data.SizeBytes,
      StreamViewType: data.StreamViewType,
    },
    eventSourceARN: streamArn,
    ...(record.userIdentity ? { userIdentity: { type: record.userIdentity.Type, principalId: record.userIdentity.PrincipalId } } : {}),
  };
}
