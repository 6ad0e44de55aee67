/**
 * The signed STS GetCallerIdentity request of an AWS IAM login (decisions.md, "Workload identity"): the client signs
 * it with the AWS SDK's own signer and credentials from the default chain, and the service replays it to STS to learn
 * who signed. Both AWS packages are loaded with `import()` on the first IAM login only: a client that uses a token or
 * OIDC, and every cold start before the first login, never loads them. Nor does this module import a Node built-in
 * (the hashing the signer needs comes with them), so that the client runs in a browser (the web console).
 */

/** The one body an IAM login may carry. */
export const GET_CALLER_IDENTITY_BODY = 'Action=GetCallerIdentity&Version=2011-06-15';

/** The header that binds a login to one deployment of the service; it must be signed. */
export const SERVER_ID_HEADER = 'x-service-server-id';

/** The signed request as a login body carries it. */
export interface SignedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** Where and for whom a login's request is signed. */
export interface AwsIamSettings {
  /** The STS endpoint the service replays the request to. */
  stsEndpoint: string;
  /** The service's server id, sent (and signed) as `x-service-server-id`. */
  serverId: string;
  /** The SigV4 signing region. */
  region: string;
}

/** The options of an AWS IAM login that settle where the request is signed for. */
export interface AwsIamPlace {
  stsEndpoint?: string;
  serverId?: string;
  region?: string;
}

/**
 * Settles the endpoint, server id and region of an IAM login: the endpoint from `stsEndpoint`, else
 * `SECRETS_AWS_STS_ENDPOINT`, else the regional endpoint of `AWS_REGION`; the server id from `serverId`, else the host
 * and port of the base URL; the region from the endpoint's host (`sts.<region>.amazonaws.com`), else `region`, else
 * us-east-1 (what the local stack's STS stand-in checks: a host that names no region is not AWS's, so the workload's
 * own `AWS_REGION` says nothing of it). Throws a TypeError when no endpoint can be settled.
 */
export function awsIamSettings(place: AwsIamPlace, baseUrl: string, env: NodeJS.ProcessEnv = process.env): AwsIamSettings {
  // The region Lambda, ECS and the AWS CLI set; China's regions have their own domain.
  const region = env.AWS_REGION || env.AWS_DEFAULT_REGION || undefined;
  const regional = region ? `https://sts.${region}.amazonaws.com${region.startsWith('cn-') ? '.cn' : ''}/` : undefined;
  const stsEndpoint = place.stsEndpoint ?? (env.SECRETS_AWS_STS_ENDPOINT || undefined) ?? regional;
  if (!stsEndpoint) throw new TypeError('an aws_iam login needs an STS endpoint: auth.stsEndpoint, SECRETS_AWS_STS_ENDPOINT or AWS_REGION');
  if (!URL.canParse(stsEndpoint)) throw new TypeError('the STS endpoint of an aws_iam login is not an absolute URL');
  const host = new URL(stsEndpoint).hostname;
  // Regional, FIPS and interface VPC endpoint hosts name their region; the global endpoint signs for us-east-1.
  const named =
    host === 'sts.amazonaws.com' ? 'us-east-1' : /(?:^|\.)sts(?:-fips)?\.([a-z0-9-]+)\.(?:vpce\.)?amazonaws\.com(?:\.cn)?$/.exec(host)?.[1];
  return { stsEndpoint, serverId: place.serverId ?? new URL(baseUrl).host, region: named ?? place.region ?? 'us-east-1' };
}

type AwsModules = [
  typeof import('@smithy/signature-v4'),
  typeof import('@aws-sdk/credential-providers'),
  typeof import('./node-sha256.js'),
];

/** The AWS packages, loaded once per process on the first IAM login (a failed load is tried again next time). */
let modules: Promise<AwsModules> | undefined;
function loadAwsModules(): Promise<AwsModules> {
  if (!modules) {
    modules = Promise.all([import('@smithy/signature-v4'), import('@aws-sdk/credential-providers'), import('./node-sha256.js')]);
    modules.catch(() => (modules = undefined));
  }
  return modules;
}

/**
 * A signer of the login's GetCallerIdentity request: each call signs a fresh one (a new `x-amz-date`) with the
 * credentials of the AWS SDK's default chain, which is made once and keeps (and refreshes) what it found.
 */
export function makeAwsIamSigner(settings: AwsIamSettings): () => Promise<SignedRequest> {
  let credentials: ReturnType<AwsModules[1]['fromNodeProviderChain']> | undefined;
  return async () => {
    const [{ SignatureV4 }, { fromNodeProviderChain }, { NodeSha256 }] = await loadAwsModules();
    credentials ??= fromNodeProviderChain();
    const url = new URL(settings.stsEndpoint);
    const signer = new SignatureV4({ service: 'sts', region: settings.region, credentials, sha256: NodeSha256 });
    const signed = await signer.sign({
      method: 'POST',
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port ? { port: Number(url.port) } : {}),
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: {
        host: url.host,
        'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
        [SERVER_ID_HEADER]: settings.serverId,
      },
      body: GET_CALLER_IDENTITY_BODY,
    });
    const headers = Object.fromEntries(Object.entries(signed.headers).map(([name, value]) => [name, String(value)]));
    return { url: url.href, method: 'POST', headers, body: GET_CALLER_IDENTITY_BODY };
  };
}
