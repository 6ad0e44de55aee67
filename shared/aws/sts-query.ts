import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Principal } from '../platform/principal.ts';
import { AwsError } from './aws-errors.ts';
import type { SignedRequest } from './sigv4.ts';

/**
 * STS at the AWS API's endpoint (decisions.md, "The AWS API for Terraform and External Secrets Operator"):
 * `GetCallerIdentity` in AWS's Query protocol (a form body in, XML out), so that Terraform's `aws` provider (with
 * `endpoints { sts = … }`), the AWS CLI and the Secrets Manager Agent validate their credentials here. The request is
 * authenticated by the same SigV4 path as Secrets Manager's (aws-handler.ts); this file reads its action and writes
 * STS's answers and errors. A chunk of its own (aws-handler.ts imports it on the first STS request), so the cold
 * start of a Secrets Manager call does not read it. Hand-written XML: two fixed documents of escaped text, which an
 * XML library would only make larger.
 */

/** The one version of STS's API. */
export const STS_VERSION = '2011-06-15';
const NAMESPACE = `https://sts.amazonaws.com/doc/${STS_VERSION}/`;
const FORM = /^application\/x-www-form-urlencoded\s*(;|$)/i;

type ApiResult = APIGatewayProxyStructuredResultV2;

/** STS's code and status for each AWS JSON error type the shared authentication path throws (STS's Common Errors). */
const STS_CODES: ReadonlyMap<string, readonly [code: string, status: number]> = new Map([
  ['MissingAuthenticationToken', ['MissingAuthenticationToken', 403]],
  ['IncompleteSignature', ['IncompleteSignature', 400]],
  ['InvalidSignatureException', ['SignatureDoesNotMatch', 403]],
  ['UnrecognizedClientException', ['InvalidClientTokenId', 403]],
  ['ExpiredTokenException', ['ExpiredToken', 403]],
  ['AccessDeniedException', ['AccessDenied', 403]],
  ['ThrottlingException', ['Throttling', 400]],
  ['InternalServiceError', ['InternalFailure', 500]],
]);

const escapeXml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

/**
 * The form's parameters: none when the body is not form-encoded (as AWS reads it: then the action is missing). A
 * body that is not UTF-8 or names a parameter twice is MalformedQueryString: which of two Actions ran must not be
 * a guess.
 */
export function formParameters(body: Buffer, contentType: string | undefined): Map<string, string> {
  const parameters = new Map<string, string>();
  if (!FORM.test(contentType ?? '')) return parameters;
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new AwsError('MalformedQueryString', 'The request body is not valid UTF-8.');
  }
  for (const [name, value] of new URLSearchParams(text)) {
    if (parameters.has(name))
      throw new AwsError('MalformedQueryString', `The parameter ${JSON.stringify(name.slice(0, 64))} is given twice.`);
    parameters.set(name, value);
  }
  return parameters;
}

/** A name from the request, echoed in a message only when it is a short word (never whatever bytes were sent). */
const shown = (text: string, pattern: RegExp) => (pattern.test(text) ? text : '(not valid)');

/**
 * The action the parameters name, when it is one this endpoint serves (GetCallerIdentity of version 2011-06-15):
 * otherwise MissingAction, MissingParameter, or InvalidAction as STS answers any other action.
 */
export function stsActionOf(parameters: ReadonlyMap<string, string>): 'GetCallerIdentity' {
  const action = parameters.get('Action');
  if (!action) throw new AwsError('MissingAction', 'The request must contain the parameter Action.');
  const version = parameters.get('Version');
  if (version === undefined) throw new AwsError('MissingParameter', 'The request must contain the parameter Version.');
  if (action !== 'GetCallerIdentity' || version !== STS_VERSION) {
    const named = `${shown(action, /^[A-Za-z0-9]{1,64}$/)} for version ${shown(version, /^[0-9-]{1,16}$/)}`;
    throw new AwsError('InvalidAction', `Could not find operation ${named}: this endpoint serves STS's GetCallerIdentity only.`);
  }
  return action;
}

/** GetCallerIdentity takes no input: any parameter but Action and Version is refused, naming it. */
export function checkNoOtherParameters(parameters: ReadonlyMap<string, string>): void {
  const other = [...parameters.keys()].find((name) => name !== 'Action' && name !== 'Version');
  if (other !== undefined) {
    throw new AwsError('InvalidParameterValue', `GetCallerIdentity takes no parameter ${JSON.stringify(other.slice(0, 64))}.`);
  }
}

/** An answer as STS sends it (`text/xml`); an error's code also in `x-amzn-ErrorType`, which the request log reads. */
function xmlAnswer(requestId: string, status: number, xml: string, errorCode?: string): ApiResult {
  return {
    statusCode: status,
    headers: {
      'content-type': 'text/xml',
      'x-amzn-requestid': requestId,
      'cache-control': 'no-store',
      ...(errorCode && { 'x-amzn-errortype': errorCode }),
    },
    body: `<?xml version="1.0" encoding="UTF-8"?>\n${xml}\n`,
  };
}

/**
 * Answers an STS request whose signature held: GetCallerIdentity's identity of the calling access key (`UserId` its
 * `ak_` id, for its key pair and for temporary credentials of a login with it alike), or the action's refusal.
 * Reads nothing: the key was read to authenticate, and its use recorded there (lastUsedAt).
 */
export function answerSts(principal: Principal, request: Pick<SignedRequest, 'body' | 'headers'>, account: string, requestId: string) {
  const parameters = formParameters(request.body, request.headers['content-type']);
  const action = stsActionOf(parameters);
  checkNoOtherParameters(parameters);
  const userId = escapeXml(principal.credentialId);
  const result = [
    `<GetCallerIdentityResponse xmlns="${NAMESPACE}">`,
    '  <GetCallerIdentityResult>',
    `    <Arn>arn:aws:iam::${escapeXml(account)}:user/secrets-service/${userId}</Arn>`,
    `    <UserId>${userId}</UserId>`,
    `    <Account>${escapeXml(account)}</Account>`,
    '  </GetCallerIdentityResult>',
    `  <ResponseMetadata><RequestId>${requestId}</RequestId></ResponseMetadata>`,
    '</GetCallerIdentityResponse>',
  ];
  return { action, result: xmlAnswer(requestId, 200, result.join('\n')) };
}

/** An error in STS's XML form (`ErrorResponse`), its code and status as STS names them for what was refused. */
export function stsErrorAnswer(error: AwsError, requestId: string): ApiResult {
  const [code, status] = STS_CODES.get(error.type) ?? [error.type, error.status];
  const xml = [
    `<ErrorResponse xmlns="${NAMESPACE}">`,
    `  <Error><Type>${status >= 500 ? 'Receiver' : 'Sender'}</Type><Code>${escapeXml(code)}</Code><Message>${escapeXml(error.message)}</Message></Error>`,
    `  <RequestId>${requestId}</RequestId>`,
    '</ErrorResponse>',
  ];
  return xmlAnswer(requestId, status, xml.join('\n'), code);
}
