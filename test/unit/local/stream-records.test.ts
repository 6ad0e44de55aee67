import { describe, expect, it } from 'vitest';
import type { _Record, AttributeValue } from '@aws-sdk/client-dynamodb-streams';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { toLambdaRecord } from '../../../bin/local/stream-records.ts';

const STREAM = 'arn:aws:dynamodb:ddblocal:000000000000:table/t/stream/1';

/** DynamoDB Local's empty map, as its GetRecords answers it (`"m":{}`, no `M`) and the SDK passes it on. */
const BARE_EMPTY_MAP = {} as AttributeValue;

/** An INSERT and MODIFY record as the streams client returns it from DynamoDB Local. */
const record = (newImage: Record<string, AttributeValue>, oldImage?: Record<string, AttributeValue>): _Record => ({
  eventID: 'e1',
  eventName: oldImage ? 'MODIFY' : 'INSERT',
  eventVersion: '1.1',
  eventSource: 'aws:dynamodb',
  awsRegion: 'ddblocal',
  dynamodb: {
    ApproximateCreationDateTime: new Date('2026-01-01T00:00:00Z'),
    Keys: { PK: { S: 'p' } },
    NewImage: newImage,
    ...(oldImage && { OldImage: oldImage }),
    SequenceNumber: '000000000000000000001',
    SizeBytes: 42,
    StreamViewType: 'NEW_AND_OLD_IMAGES',
  },
});

describe('toLambdaRecord', () => {
  it('gives an empty map its M, at any depth and in either image, as Lambda delivers it on AWS', () => {
    // Prepare
    const image = {
      PK: { S: 'p' },
      metadata: BARE_EMPTY_MAP,
      nested: { M: { inner: BARE_EMPTY_MAP, list: { L: [BARE_EMPTY_MAP] } } },
    };

    // Act
    const lambda = toLambdaRecord(record(image, { PK: { S: 'p' }, metadata: BARE_EMPTY_MAP }), STREAM);

    // Assess
    expect(lambda.dynamodb?.NewImage).toEqual({
      PK: { S: 'p' },
      metadata: { M: {} },
      nested: { M: { inner: { M: {} }, list: { L: [{ M: {} }] } } },
    });
    expect(lambda.dynamodb?.OldImage).toEqual({ PK: { S: 'p' }, metadata: { M: {} } });
    expect(unmarshall(lambda.dynamodb?.NewImage as never)).toEqual({ PK: 'p', metadata: {}, nested: { inner: {}, list: [{}] } });
  });

  it('keeps empty lists, empty strings, false and NULL as they are, and base64-encodes binary values', () => {
    // Prepare
    const image: Record<string, AttributeValue> = {
      list: { L: [] },
      text: { S: '' },
      flag: { BOOL: false },
      none: { NULL: true },
      bytes: { B: Uint8Array.from([1, 2]) },
      set: { BS: [Uint8Array.from([3])] },
    };

    // Act
    const lambda = toLambdaRecord(record(image), STREAM);

    // Assess
    expect(lambda.dynamodb?.NewImage).toEqual({
      list: { L: [] },
      text: { S: '' },
      flag: { BOOL: false },
      none: { NULL: true },
      bytes: { B: 'AQI=' },
      set: { BS: ['Aw=='] },
    });
    expect(lambda.dynamodb?.ApproximateCreationDateTime).toBe(1767225600);
  });
});
