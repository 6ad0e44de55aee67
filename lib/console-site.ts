import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  type BehaviorOptions,
  CachePolicy,
  Distribution,
  Function as CloudFrontFunction,
  FunctionCode,
  FunctionEventType,
  FunctionRuntime,
  HeadersFrameOption,
  HeadersReferrerPolicy,
  ResponseHeadersPolicy,
  S3OriginAccessControl,
  ViewerProtocolPolicy,
} from 'aws-cdk-lib/aws-cloudfront';
import { S3BucketOrigin } from 'aws-cdk-lib/aws-cloudfront-origins';
import { type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, type IBucket, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Asset } from 'aws-cdk-lib/aws-s3-assets';
import { BucketDeployment, CacheControl, Source } from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import { CONSOLE_BASE } from '../shared/platform/routes.ts';
import type { JwtSettings } from './api.ts';
import { acknowledgeWildcardResource } from './nag.ts';

/** The bucket's key prefix of the console: the path it is served under, without the slashes. */
export const CONSOLE_PREFIX = CONSOLE_BASE.replace(/^\//, '');

/**
 * The CloudFront Function on every viewer request (cloudfront-js-2.0). The console routes in the browser, so an
 * address under /console/ without a file extension (`/console/projects/prj_…`) is its shell, `index.html`; the
 * hashed assets and `config.json` are left alone, and so is anything else (S3 answers 403 for a key it lacks:
 * CloudFront's error pages are not used, so a missing asset stays an error). `/` and `/console` redirect to the shell.
 */
export const VIEWER_REQUEST_CODE = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri === '/' || uri === '${CONSOLE_BASE}') {
    return { statusCode: 302, statusDescription: 'Found', headers: { location: { value: '${CONSOLE_BASE}/' } } };
  }
  var inConsole = uri.indexOf('${CONSOLE_BASE}/') === 0 && uri.indexOf('${CONSOLE_BASE}/assets/') !== 0;
  if (inConsole && uri.slice(uri.lastIndexOf('/') + 1).indexOf('.') === -1) {
    request.uri = '${CONSOLE_BASE}/index.html';
  }
  return request;
}
`;

/** What `/console/config.json` tells the console (console/src/config.ts). */
export interface ConsoleConfig {
  readonly apiUrl: string;
  readonly issuer?: string;
  readonly clientId?: string;
  readonly resource?: string;
  readonly roleClaim: string;
  readonly defaultRole: string;
}

export interface ConsoleSiteProps {
  /** The identity provider the API accepts; the console signs in with it when `clientId` is set too. */
  readonly jwt?: JwtSettings | undefined;
  /** The console's OAuth client id at the identity provider. @default sign-in with a pasted token only */
  readonly clientId?: string | undefined;
  readonly removalPolicy: RemovalPolicy;
  /** Of the deployment function's log group. */
  readonly logRetention: RetentionDays;
}

/**
 * The web console of the CDK stack (decisions.md, "Console"): a private bucket that only CloudFront reads (origin
 * access control), served under `/console/` over HTTPS with the same security headers as the local front
 * (bin/local/console-site.ts). `publish` deploys a build into it once the API's URL is known; the API's CORS allows
 * `origin` alone.
 */
export class ConsoleSiteConstruct extends Construct {
  readonly bucket: Bucket;
  readonly distribution: Distribution;
  readonly viewerRequest: CloudFrontFunction;
  readonly headers: ResponseHeadersPolicy;
  /** `https://<distribution domain>`, the console's origin. */
  readonly origin: string;
  /** The console's address, `<origin>/console/`. */
  readonly url: string;
  private readonly props: ConsoleSiteProps;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    this.props = props;
    const { stackName, region, urlSuffix } = Stack.of(this);
    // CloudFront names are global to the account: the region keeps one stage's stacks in two regions apart.
    const name = `${stackName}-console-${region}`;
    this.bucket = new Bucket(this, 'Bucket', {
      encryption: BucketEncryption.S3_MANAGED,
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      removalPolicy: props.removalPolicy,
      autoDeleteObjects: props.removalPolicy === RemovalPolicy.DESTROY,
    });
    this.viewerRequest = new CloudFrontFunction(this, 'ViewerRequest', {
      code: FunctionCode.fromInline(VIEWER_REQUEST_CODE),
      runtime: FunctionRuntime.JS_2_0,
      comment: 'Serves the console shell for its in-browser routes',
    });
    // The API's exact origin cannot be named here: the API's CORS names this distribution, which names this policy.
    // Any API of the stack's region is allowed at the edge; index.html narrows it to this API (see `publish`).
    const apiOrigins = `https://*.execute-api.${region}.${urlSuffix}`;
    this.headers = new ResponseHeadersPolicy(this, 'Headers', {
      responseHeadersPolicyName: name,
      comment: 'The console security headers (bin/local/console-site.ts consoleHeaders)',
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: consoleCsp([apiOrigins, ...this.idpOrigins()]), override: true },
        contentTypeOptions: { override: true },
        frameOptions: { frameOption: HeadersFrameOption.DENY, override: true },
        referrerPolicy: { referrerPolicy: HeadersReferrerPolicy.NO_REFERRER, override: true },
        strictTransportSecurity: { accessControlMaxAge: Duration.days(365), includeSubdomains: true, override: true },
      },
      customHeadersBehavior: { customHeaders: [{ header: 'Cross-Origin-Opener-Policy', value: 'same-origin', override: true }] },
    });
    const behaviour: BehaviorOptions = {
      origin: S3BucketOrigin.withOriginAccessControl(this.bucket, {
        originAccessControl: new S3OriginAccessControl(this, 'OriginAccess', { originAccessControlName: name }),
      }),
      viewerProtocolPolicy: ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
      cachePolicy: CachePolicy.CACHING_OPTIMIZED,
      responseHeadersPolicy: this.headers,
      functionAssociations: [{ function: this.viewerRequest, eventType: FunctionEventType.VIEWER_REQUEST }],
    };
    this.distribution = new Distribution(this, 'Distribution', {
      comment: `${stackName} console`,
      defaultBehavior: behaviour,
      additionalBehaviors: { [`${CONSOLE_BASE}/*`]: behaviour },
    });
    acknowledgeEdgeFindings(this.bucket, this.distribution);
    this.origin = `https://${this.distribution.distributionDomainName}`;
    this.url = `${this.origin}${CONSOLE_BASE}/`;
    new CfnOutput(this, 'ConsoleUrl', { value: this.url, description: 'The web console' }).overrideLogicalId('ConsoleUrl');
  }

  /**
   * Deploys a console build (bin/console-build.ts) under `console/`: the hashed assets first, cached for a year and
   * never pruned (a page loaded before a deploy still finds its chunks), then `index.html` and `config.json`, never
   * cached, whose tokens (the API's URL) the deployment resolves.
   */
  publish(build: { readonly dir: string; readonly apiUrl: string }): { assets: BucketDeployment; shell: BucketDeployment } {
    const logGroup = new LogGroup(this, 'DeploymentLogs', { retention: this.props.logRetention, removalPolicy: this.props.removalPolicy });
    const role = new Role(this, 'DeploymentRole', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
    const common = { destinationBucket: this.bucket, role, logGroup, prune: false };
    // An asset of its own rather than Source.asset: its bucket names the grant the deployment makes (see below).
    const files = new Asset(this, 'AssetFiles', { path: join(build.dir, 'assets') });
    const assets = new BucketDeployment(this, 'Assets', {
      ...common,
      sources: [Source.bucket(files.bucket, files.s3ObjectKey)],
      destinationKeyPrefix: `${CONSOLE_PREFIX}/assets/`,
      cacheControl: [CacheControl.setPublic(), CacheControl.maxAge(Duration.days(365)), CacheControl.immutable()],
    });
    const shell = new BucketDeployment(this, 'Shell', {
      ...common,
      sources: [Source.data('index.html', this.shellHtml(build)), Source.jsonData('config.json', this.config(build.apiUrl))],
      destinationKeyPrefix: `${CONSOLE_PREFIX}/`,
      cacheControl: [CacheControl.noStore()],
    });
    shell.node.addDependency(assets);
    acknowledgeDeploymentFindings(role, files.bucket, this.bucket);
    return { assets, shell };
  }

  /**
   * What config.json says: the issuer and client id only together, when the console signs in with the IdP, and the
   * API's JWT audience as the resource indicator (RFC 8707) the console asks for, so that a provider that issues
   * access tokens per resource issues one the API accepts (others ignore the parameter).
   */
  private config(apiUrl: string): ConsoleConfig {
    const { jwt, clientId } = this.props;
    return {
      apiUrl,
      ...(jwt && clientId && { issuer: jwt.issuer, clientId, resource: jwt.audience }),
      roleClaim: jwt?.roleClaim ?? 'roles',
      defaultRole: jwt?.defaultRole ?? 'viewer',
    };
  }

  /**
   * The built index.html with a second policy in its head, read before its script: the page may connect to this
   * API alone (and the IdP), not to any API of the region as the header allows. A browser enforces both policies.
   */
  private shellHtml(build: { readonly dir: string; readonly apiUrl: string }): string {
    const html = readFileSync(join(build.dir, 'index.html'), 'utf8');
    if (!/<head>/i.test(html)) throw new Error(`${join(build.dir, 'index.html')} has no <head> to carry the connect-src policy`);
    const meta = `<meta http-equiv="Content-Security-Policy" content="connect-src ${["'self'", build.apiUrl, ...this.idpOrigins()].join(' ')}" />`;
    return html.replace(/<head>(\s*<meta charset="[^"]*"\s*\/?>)?/i, (head) => `${head}\n    ${meta}`);
  }

  /** The identity provider's origin, which the console reaches (discovery, token) only when it signs in with it. */
  private idpOrigins(): string[] {
    const { jwt, clientId } = this.props;
    if (!jwt || !clientId) return [];
    if (!URL.canParse(jwt.issuer) || new URL(jwt.issuer).protocol !== 'https:') {
      throw new Error(`The console signs in with its identity provider only over https; the JWT issuer is "${jwt.issuer}"`);
    }
    return [new URL(jwt.issuer).origin];
  }
}

/** The console's Content-Security-Policy, as the local front writes it, with `connect` after `'self'`. */
export function consoleCsp(connect: readonly string[]): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    `connect-src ${["'self'", ...new Set(connect)].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join('; ');
}

/** Findings of the edge that this site accepts, each with its reason; a custom domain would settle CFR4. */
function acknowledgeEdgeFindings(bucket: Bucket, distribution: Distribution): void {
  Validations.of(bucket).acknowledge({
    id: 'AwsSolutions-S1',
    reason:
      'The bucket holds the public build of the console only; the deployment alone writes it and CloudFront alone reads it, so access logs would record nothing worth keeping.',
  });
  Validations.of(distribution).acknowledge(
    {
      id: 'AwsSolutions-CFR1',
      reason:
        'The console is static code for people of the service wherever they work; the API authenticates every call, so no country needs to be kept out.',
    },
    {
      id: 'AwsSolutions-CFR2',
      reason:
        'Only static files are served here, each identical for every viewer; the API that holds the data throttles and authenticates on its own (a CLOUDFRONT web ACL would have to live in us-east-1).',
    },
    {
      id: 'AwsSolutions-CFR3',
      reason:
        'The distribution serves the same public files to everyone; every call that touches data is recorded in the API access log instead.',
    },
    {
      id: 'AwsSolutions-CFR4',
      reason:
        'The default cloudfront.net certificate has a fixed TLSv1 policy; a TLSv1.2_2021 minimum needs a custom domain with an ACM certificate in us-east-1.',
    },
  );
}

/**
 * Findings of BucketDeployment's function, which aws-cdk-lib builds and grants itself: its runtime (Python with the
 * AWS CLI layer) and the grants on the source assets and the console bucket are not ours to choose.
 */
function acknowledgeDeploymentFindings(role: IRole, sources: IBucket, bucket: IBucket): void {
  const actions = ['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'];
  Validations.of(role).acknowledge(
    ...actions.map((action) => ({
      id: `AwsSolutions-IAM5[Action::${action}]`,
      reason:
        'BucketDeployment grants these itself (grantRead of its sources, grantReadWrite of the bucket) to copy the console in; its props cannot narrow them.',
    })),
  );
  acknowledgeWildcardResource(
    role,
    sources.arnForObjects('*'),
    'The deployment reads its source zips from the CDK assets bucket; their keys are asset hashes, known only at synth.',
  );
  acknowledgeWildcardResource(
    role,
    bucket.arnForObjects('*'),
    'The deployment writes every file of the console (hashed names that change with each build) into this one bucket.',
  );
  const handler = Stack.of(role).node.children.find(
    (child): child is LambdaFunction => child instanceof LambdaFunction && child.role === role,
  );
  if (!handler) throw new Error('The console deployment function was not found beside the stack');
  Validations.of(handler).acknowledge({
    id: 'AwsSolutions-L1',
    reason:
      'The runtime of the BucketDeployment function is pinned by aws-cdk-lib (Python with its AWS CLI layer) and moves with its upgrades.',
  });
}
