import { describe, expect, it } from 'vitest';
import { AwsError } from '../../../shared/aws/aws-errors.ts';
import { answerSts, checkNoOtherParameters, formParameters, stsActionOf, stsErrorAnswer } from '../../../shared/aws/sts-query.ts';

const FORM = 'application/x-www-form-urlencoded; charset=utf-8';
const principal = {
  workspaceId: 'ws_1',
  accountId: 'acc_1',
  kind: 'machine',
  actorSub: 'mid_1',
  credentialId: 'ak_0123456789abcdef',
} as never;
const request = (body: string, contentType: string | null = FORM) => ({
  body: Buffer.from(body),
  headers: contentType === null ? ({} as Record<string, string>) : { 'content-type': contentType },
});

/** What an STS call answers, or the AwsError it throws: its type and message. */
function refusal(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (error instanceof AwsError) return { type: error.type, message: error.message };
    throw error;
  }
  return 'answered';
}

describe('STS GetCallerIdentity in the Query protocol', () => {
  it('answers the calling key as AWS does: Arn, UserId (the ak_ id) and Account, in text/xml with the request id', () => {
    // Prepare / Act
    const { action, result } = answerSts(principal, request('Action=GetCallerIdentity&Version=2011-06-15'), '123456789012', 'req-1');
    // Assess
    expect(action).toBe('GetCallerIdentity');
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'content-type': 'text/xml', 'x-amzn-requestid': 'req-1' });
    expect(result.body).toContain('<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">');
    expect(result.body).toContain('<Arn>arn:aws:iam::123456789012:user/secrets-service/ak_0123456789abcdef</Arn>');
    expect(result.body).toContain('<UserId>ak_0123456789abcdef</UserId>');
    expect(result.body).toContain('<Account>123456789012</Account>');
    expect(result.body).toContain('<ResponseMetadata><RequestId>req-1</RequestId></ResponseMetadata>');
  });

  it('reads the form whatever the order of its parameters and its charset parameter', () => {
    expect(formParameters(Buffer.from('Version=2011-06-15&Action=GetCallerIdentity'), 'application/x-www-form-urlencoded')).toEqual(
      new Map([
        ['Version', '2011-06-15'],
        ['Action', 'GetCallerIdentity'],
      ]),
    );
  });

  it('reads no parameter from a body that is not form-encoded, so its action is missing (MissingAction)', () => {
    expect(formParameters(Buffer.from('Action=GetCallerIdentity&Version=2011-06-15'), 'application/json').size).toBe(0);
    expect(formParameters(Buffer.from('Action=GetCallerIdentity&Version=2011-06-15'), undefined).size).toBe(0);
    expect(refusal(() => answerSts(principal, request('Action=GetCallerIdentity&Version=2011-06-15', null), '1', 'r'))).toMatchObject({
      type: 'MissingAction',
    });
  });

  it('refuses a form that is not UTF-8, or names a parameter twice (MalformedQueryString)', () => {
    expect(refusal(() => formParameters(Buffer.from([0x41, 0x3d, 0xff, 0xfe]), FORM))).toEqual({
      type: 'MalformedQueryString',
      message: 'The request body is not valid UTF-8.',
    });
    expect(refusal(() => formParameters(Buffer.from('Action=GetCallerIdentity&Version=2011-06-15&Action=AssumeRole'), FORM))).toEqual({
      type: 'MalformedQueryString',
      message: 'The parameter "Action" is given twice.',
    });
  });

  it('refuses a missing Action (MissingAction) and a missing Version (MissingParameter)', () => {
    expect(refusal(() => stsActionOf(new Map([['Version', '2011-06-15']])))).toMatchObject({ type: 'MissingAction' });
    expect(refusal(() => stsActionOf(new Map([['Action', 'GetCallerIdentity']])))).toMatchObject({
      type: 'MissingParameter',
      message: expect.stringMatching(/Version/),
    });
  });

  it('refuses any other action or version (InvalidAction), naming it only when it is a plain word', () => {
    const other = (action: string, version = '2011-06-15') =>
      refusal(() =>
        stsActionOf(
          new Map([
            ['Action', action],
            ['Version', version],
          ]),
        ),
      );
    expect(other('AssumeRole')).toEqual({
      type: 'InvalidAction',
      message: "Could not find operation AssumeRole for version 2011-06-15: this endpoint serves STS's GetCallerIdentity only.",
    });
    expect(other('GetCallerIdentity', '2011-06-16')).toMatchObject({ type: 'InvalidAction', message: expect.stringMatching(/2011-06-16/) });
    expect(other('<script>', '2011-06-15')).toMatchObject({
      type: 'InvalidAction',
      message: expect.stringMatching(/^Could not find operation \(not valid\)/),
    });
  });

  it('refuses a parameter GetCallerIdentity does not take (InvalidParameterValue), naming it', () => {
    const parameters = formParameters(Buffer.from('Action=GetCallerIdentity&Version=2011-06-15&DurationSeconds=900'), FORM);
    expect(refusal(() => checkNoOtherParameters(parameters))).toEqual({
      type: 'InvalidParameterValue',
      message: 'GetCallerIdentity takes no parameter "DurationSeconds".',
    });
    expect(refusal(() => answerSts(principal, request('Action=GetCallerIdentity&Version=2011-06-15&X=1'), '1', 'r'))).toMatchObject({
      type: 'InvalidParameterValue',
    });
  });

  it("answers errors in STS's XML form with the codes and statuses STS uses for what the shared path refuses", () => {
    const cases = [
      ['InvalidSignatureException', 'SignatureDoesNotMatch', 403, 'Sender'],
      ['UnrecognizedClientException', 'InvalidClientTokenId', 403, 'Sender'],
      ['ExpiredTokenException', 'ExpiredToken', 403, 'Sender'],
      ['AccessDeniedException', 'AccessDenied', 403, 'Sender'],
      ['MissingAuthenticationToken', 'MissingAuthenticationToken', 403, 'Sender'],
      ['IncompleteSignature', 'IncompleteSignature', 400, 'Sender'],
      ['ThrottlingException', 'Throttling', 400, 'Sender'],
      ['InternalServiceError', 'InternalFailure', 500, 'Receiver'],
      ['InvalidAction', 'InvalidAction', 400, 'Sender'],
    ] as const;
    for (const [type, code, status, kind] of cases) {
      const answer = stsErrorAnswer(new AwsError(type, 'a <message> & more', 400), 'req-2');
      expect({ type, status: answer.statusCode, contentType: answer.headers?.['content-type'] }).toEqual({
        type,
        status,
        contentType: 'text/xml',
      });
      expect(answer.body).toContain(
        `<Error><Type>${kind}</Type><Code>${code}</Code><Message>a &lt;message&gt; &amp; more</Message></Error>`,
      );
      expect(answer.body).toContain('<RequestId>req-2</RequestId>');
    }
  });
});
