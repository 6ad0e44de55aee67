import type { App } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleHeaders } from '../../bin/local/console-site.ts';
import { VIEWER_REQUEST_CODE } from '../../lib/console-site.ts';
import type { ServiceStack } from '../../lib/service-stack.ts';
import { deployedFile, directives, render, viewerRequest } from './console-files.ts';
import { idOf, makeOutdir, only, type Resource, synth } from './synth.ts';

const JWT = {
  issuer: 'https://idp.example.com/tenant/',
  audience: 'secrets-api',
  jwksUri: 'https://idp.example.com/jwks',
  roleClaim: 'groups',
};

let outdir: Awaited<ReturnType<typeof makeOutdir>>;
let app: App;
let stack: ServiceStack;
let template: Template;
let distributionId: string;
/** `https://<distribution domain>` as the template spells it. */
let consoleOrigin: unknown;

beforeAll(async () => {
  outdir = await makeOutdir('infra-console-');
  // Act
  ({ app, stack, template } = synth(outdir.dir));
  distributionId = idOf(stack, stack.consoleSite!.distribution);
  consoleOrigin = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] };
});

/** The console's bucket (the stack's other bucket keeps audit digests). */
function consoleBucketOf(template: Template, stack: ServiceStack): [string, Resource] {
  const id = idOf(stack, stack.consoleSite!.bucket);
  return [id, template.findResources('AWS::S3::Bucket')[id] as Resource];
}

afterAll(async () => {
  await outdir.cleanup();
});

describe('console bucket', () => {
  it('is private: encrypted, no public access, owner-enforced, no website hosting, retained by default', () => {
    const [, bucket] = consoleBucketOf(template, stack);
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    expect(bucket.Properties.WebsiteConfiguration).toBeUndefined();
    expect(bucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(template.findResources('Custom::S3AutoDeleteObjects')).toEqual({});
  });

  it('refuses plain HTTP and lets only this distribution read, through origin access control (no OAI)', () => {
    const [bucketId] = consoleBucketOf(template, stack);
    const policy = (Object.values(template.findResources('AWS::S3::BucketPolicy')) as Resource[]).find(
      (found) => JSON.stringify(found.Properties.Bucket) === JSON.stringify({ Ref: bucketId }),
    )!;
    const statements = policy.Properties.PolicyDocument.Statement as {
      Effect: string;
      Principal: unknown;
      Action: string;
      Condition?: any;
    }[];
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    expect(statements.filter((s) => s.Effect === 'Allow')).toEqual([
      {
        Effect: 'Allow',
        Principal: { Service: 'cloudfront.amazonaws.com' },
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId, 'Arn'] }, '/*']] },
        Condition: {
          StringEquals: {
            'AWS:SourceArn': {
              'Fn::Join': [
                '',
                ['arn:', { Ref: 'AWS::Partition' }, ':cloudfront::', { Ref: 'AWS::AccountId' }, `:distribution/`, { Ref: distributionId }],
              ],
            },
          },
        },
      },
    ]);
    const [oacId, oac] = only(template, 'AWS::CloudFront::OriginAccessControl');
    expect(oac.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    const [, distribution] = only(template, 'AWS::CloudFront::Distribution');
    expect(distribution.Properties.DistributionConfig.Origins).toEqual([
      expect.objectContaining({
        DomainName: { 'Fn::GetAtt': [bucketId, 'RegionalDomainName'] },
        OriginAccessControlId: { 'Fn::GetAtt': [oacId, 'Id'] },
        S3OriginConfig: { OriginAccessIdentity: '' },
      }),
    ]);
    expect(template.findResources('AWS::CloudFront::CloudFrontOriginAccessIdentity')).toEqual({});
  });

  it('goes with a destroyed stage, objects and all', () => {
    // Act
    const { stack: dev, template: destroyed } = synth(outdir.dir, { stage: 'dev', removalPolicy: 'destroy' });
    // Assess
    expect(consoleBucketOf(destroyed, dev)[1]).toMatchObject({ DeletionPolicy: 'Delete' });
    expect(Object.keys(destroyed.findResources('Custom::S3AutoDeleteObjects'))).toHaveLength(1);
  });
});

describe('console distribution', () => {
  it('serves /console/* and the default path over HTTPS only, with the function and headers policy, and no error pages', () => {
    const [, distribution] = only(template, 'AWS::CloudFront::Distribution');
    const [functionId] = only(template, 'AWS::CloudFront::Function');
    const [policyId] = only(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    const config = distribution.Properties.DistributionConfig;
    expect(config.CacheBehaviors.map((b: { PathPattern: string }) => b.PathPattern)).toEqual(['/console/*']);
    for (const behaviour of [config.DefaultCacheBehavior, ...config.CacheBehaviors]) {
      expect(behaviour).toMatchObject({
        ViewerProtocolPolicy: 'redirect-to-https',
        ResponseHeadersPolicyId: { Ref: policyId },
        FunctionAssociations: [{ EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [functionId, 'FunctionARN'] } }],
      });
      expect(behaviour.AllowedMethods ?? ['GET', 'HEAD']).toEqual(['GET', 'HEAD']);
    }
    // A missing asset must stay an error, not become the shell with 200.
    expect(config.CustomErrorResponses).toBeUndefined();
  });

  it('outputs ConsoleUrl, https://<distribution domain>/console/', () => {
    expect(template.findOutputs('ConsoleUrl').ConsoleUrl?.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/console/']],
    });
  });

  it('answers every path under /console/ without a file extension with the shell, and leaves files alone', () => {
    const [, fn] = only(template, 'AWS::CloudFront::Function');
    expect(fn.Properties.FunctionConfig.Runtime).toBe('cloudfront-js-2.0');
    const code = fn.Properties.FunctionCode as string;
    expect(code).toBe(VIEWER_REQUEST_CODE);
    for (const uri of [
      '/console/',
      '/console/projects',
      '/console/projects/prj_01J9ZZ',
      '/console/environments/env_01J9ZZ',
      '/console/audit',
    ]) {
      expect({ uri, to: viewerRequest(code, uri).uri }).toEqual({ uri, to: '/console/index.html' });
    }
    for (const uri of [
      '/console/assets/main-OX4MHZSM.js',
      '/console/assets/chunk-ABC',
      '/console/config.json',
      '/console/index.html',
      '/favicon.ico',
      '/api/v1/projects',
    ]) {
      expect({ uri, to: viewerRequest(code, uri).uri }).toEqual({ uri, to: uri });
    }
    for (const uri of ['/', '/console']) {
      expect(viewerRequest(code, uri)).toMatchObject({ statusCode: 302, headers: { location: { value: '/console/' } } });
    }
  });
});

describe('console security headers', () => {
  it('carries the local front’s headers: CSP with script-src self and frame-ancestors none, nosniff, DENY, no referrer, HSTS', () => {
    const [, policy] = only(template, 'AWS::CloudFront::ResponseHeadersPolicy');
    const config = policy.Properties.ResponseHeadersPolicyConfig;
    const csp = directives(
      render(config.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy, {
        'AWS::Region': 'eu-west-1',
        'AWS::URLSuffix': 'amazonaws.com',
      }),
    );
    const local = consoleHeaders({
      config: { apiUrl: 'https://abc123.execute-api.eu-west-1.amazonaws.com', roleClaim: 'roles', defaultRole: 'viewer' },
    });
    // Every directive as the local front writes it, but connect-src: any API of the region (index.html narrows it).
    expect({ ...csp, 'connect-src': undefined }).toEqual({ ...directives(local['Content-Security-Policy']!), 'connect-src': undefined });
    expect(csp).toMatchObject({
      'script-src': "'self'",
      'frame-ancestors': "'none'",
      'connect-src': "'self' https://*.execute-api.eu-west-1.amazonaws.com",
    });
    expect(config.SecurityHeadersConfig).toMatchObject({
      ContentSecurityPolicy: { Override: true },
      ContentTypeOptions: { Override: true },
      FrameOptions: { FrameOption: local['X-Frame-Options'], Override: true },
      ReferrerPolicy: { ReferrerPolicy: local['Referrer-Policy'], Override: true },
      StrictTransportSecurity: { AccessControlMaxAgeSec: 31536000, IncludeSubdomains: true, Override: true },
    });
    expect(config.CustomHeadersConfig.Items).toEqual([
      { Header: 'Cross-Origin-Opener-Policy', Value: local['Cross-Origin-Opener-Policy'], Override: true },
    ]);
  });

  it('narrows connect-src in index.html to this API, and adds the identity provider when the console signs in with it', async () => {
    const [apiId] = only(template, 'AWS::ApiGatewayV2::Api');
    const meta = (html: string) => html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1];
    expect(meta(await deployedFile({ app, template }, 'index.html'))).toBe(`connect-src 'self' <${apiId}.ApiEndpoint>`);
    // Act
    const signIn = synth(outdir.dir, { jwt: JWT, consoleClientId: 'secrets-console' });
    // Assess
    expect(meta(await deployedFile(signIn, 'index.html'))).toBe(`connect-src 'self' <${apiId}.ApiEndpoint> https://idp.example.com`);
    const [, policy] = only(signIn.template, 'AWS::CloudFront::ResponseHeadersPolicy');
    expect(
      directives(render(policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy.ContentSecurityPolicy))[
        'connect-src'
      ],
    ).toBe("'self' https://*.execute-api.<AWS::Region>.<AWS::URLSuffix> https://idp.example.com");
  });
});

describe('API CORS', () => {
  it('allows the console’s origin alone, the methods and headers the console sends, and no credentials', () => {
    const [, api] = only(template, 'AWS::ApiGatewayV2::Api');
    expect(api.Properties.CorsConfiguration).toEqual({
      AllowOrigins: [consoleOrigin],
      AllowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      AllowHeaders: ['authorization', 'content-type', 'if-match', 'idempotency-key'],
      ExposeHeaders: ['retry-after', 'x-request-id'],
      AllowCredentials: false,
      MaxAge: 3600,
    });
  });

  it('has no CORS, no bucket and no distribution without a console build', () => {
    // Act
    const { stack: bareStack, template: bare } = synth(outdir.dir, { consoleDir: undefined });
    // Assess
    expect(only(bare, 'AWS::ApiGatewayV2::Api')[1].Properties.CorsConfiguration).toBeUndefined();
    expect(bare.findResources('AWS::CloudFront::Distribution')).toEqual({});
    // The audit digests' bucket alone (lib/audit-digests.ts).
    expect(Object.keys(bare.findResources('AWS::S3::Bucket'))).toEqual([idOf(bareStack, bareStack.auditDigests.bucket)]);
  });
});
