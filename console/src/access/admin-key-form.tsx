import { useState } from 'preact/hooks';
import type { paths } from '@secrets-service/sdk/client';
import { unwrap, useSession } from '../api.ts';
import { ErrorBox, useAction } from '../ui/components.tsx';
import { ACTIONS, draftOf, newRule, ruleOf, RulesEditor, type Rule, type RuleDraft } from './admin-rules.tsx';
import { splitList, valueOf, type Schemas } from '../ui/admin-ui.tsx';

type AuthType = 'token' | 'aws_sigv4' | 'aws_iam' | 'oidc';
type CreateBody = paths['/api/v1/access-keys']['post']['requestBody']['content']['application/json'];

/** The rules a request sends; none in the editor means the API's default rule (every action on every secret). */
function permissionsOf(rules: RuleDraft[]): ReturnType<typeof ruleOf>[] {
  return rules.length > 0 ? rules.map(ruleOf) : [{ effect: 'allow', actions: [...ACTIONS] }];
}

/** A rule with the API's defaults filled in, to tell whether an edit changed anything. */
function filled(rule: ReturnType<typeof ruleOf>): Rule {
  return {
    effect: rule.effect,
    projects: rule.projects ?? ['*'],
    environments: rule.environments ?? ['*'],
    keys: rule.keys ?? ['**'],
    actions: rule.actions,
  };
}

/** `name=value` lines (OIDC claims that must match exactly). */
function claimsOf(text: string): Record<string, string> {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  // A line without `=` is sent as a claim with an empty value, so the API's message names it.
  const pair = (line: string, at: number) => (at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()]);
  return Object.fromEntries(lines.map((line) => pair(line, line.indexOf('='))));
}

/** `auth` of a create request: how the key's workloads authenticate (decisions.md, "Workload identity"). */
function authOf(type: AuthType, fields: Record<string, string>): CreateBody['auth'] {
  if (type === 'aws_sigv4') return { type };
  if (type === 'aws_iam') return { type, principalArns: splitList(fields.principalArns ?? '') };
  if (type === 'oidc') {
    const claims = claimsOf(fields.claims ?? '');
    return {
      type,
      issuer: fields.issuer ?? '',
      audience: fields.audience ?? '',
      subject: fields.subject ?? '',
      ...(Object.keys(claims).length ? { claims } : {}),
    };
  }
  return undefined;
}

/** A new access key: name, expiry, networks, how it authenticates, and its rules. */
export function NewKeyForm({ onCreated }: { onCreated: (created: Schemas['AccessKeyCreated']) => void }) {
  const { client } = useSession();
  const [fields, setFields] = useState<Record<string, string>>({
    name: '',
    expiresInDays: '',
    cidrs: '',
    auth: 'token',
    tokenTtlSeconds: '',
  });
  const [rules, setRules] = useState<RuleDraft[]>([newRule()]);
  const create = useAction();
  const field = (name: string) => (event: Event) => {
    const value = valueOf(event);
    setFields((current) => ({ ...current, [name]: value }));
  };
  const type = fields.auth as AuthType;
  // Keys whose workloads log in have tokens of a chosen life; a token and an AWS key pair do not.
  const loginType = type === 'aws_iam' || type === 'oidc';
  const submit = async (event: Event) => {
    event.preventDefault();
    const auth = authOf(type, fields);
    const body: CreateBody = {
      name: fields.name ?? '',
      ...(fields.expiresInDays ? { expiresInDays: Number(fields.expiresInDays) } : {}),
      ...(rules.length > 0 ? { permissions: rules.map(ruleOf) } : {}),
      ...(splitList(fields.cidrs ?? '').length ? { allowedCidrs: splitList(fields.cidrs ?? '') } : {}),
      ...(auth ? { auth, ...(fields.tokenTtlSeconds && loginType ? { tokenTtlSeconds: Number(fields.tokenTtlSeconds) } : {}) } : {}),
    };
    const created = await create.run(async () => unwrap(await client.api.POST('/api/v1/access-keys', { body })));
    if (!created) return;
    setFields({ name: '', expiresInDays: '', cidrs: '', auth: 'token', tokenTtlSeconds: '' });
    setRules([newRule()]);
    onCreated(created);
  };
  return (
    <form class="key-form" aria-label="New access key" onSubmit={submit}>
      <div class="fields">
        <label>
          Name
          <input value={fields.name} onInput={field('name')} required maxLength={120} />
        </label>
        <label>
          Expires in days
          <input type="number" min={1} max={3650} value={fields.expiresInDays} onInput={field('expiresInDays')} placeholder="never" />
        </label>
        <label>
          Authentication
          <select value={type} onChange={field('auth')}>
            <option value="token">Token (shown once)</option>
            <option value="aws_sigv4">AWS credentials (for the AWS Secrets Manager API; secret shown once)</option>
            <option value="aws_iam">AWS IAM login</option>
            <option value="oidc">OIDC login</option>
          </select>
        </label>
        {loginType && (
          <label>
            Token lifetime (seconds)
            <input type="number" min={60} max={43200} value={fields.tokenTtlSeconds} onInput={field('tokenTtlSeconds')} placeholder="900" />
          </label>
        )}
      </div>
      {type === 'aws_iam' && (
        <label class="wide">
          Principal ARNs
          <textarea
            rows={2}
            value={fields.principalArns ?? ''}
            onInput={field('principalArns')}
            placeholder="arn:aws:iam::123456789012:role/payments-*"
            required
          />
        </label>
      )}
      {type === 'oidc' && (
        <div class="fields">
          <label>
            Issuer
            <input
              type="url"
              value={fields.issuer ?? ''}
              onInput={field('issuer')}
              placeholder="https://token.actions.githubusercontent.com"
              required
            />
          </label>
          <label>
            Audience
            <input value={fields.audience ?? ''} onInput={field('audience')} required />
          </label>
          <label>
            Subject
            <input value={fields.subject ?? ''} onInput={field('subject')} placeholder="repo:acme/payments:*" required />
          </label>
          <label>
            Claims (name=value per line)
            <textarea rows={2} value={fields.claims ?? ''} onInput={field('claims')} />
          </label>
        </div>
      )}
      <label class="wide">
        Allowed CIDRs
        <textarea rows={2} value={fields.cidrs} onInput={field('cidrs')} placeholder="anywhere (e.g. 203.0.113.0/24, 2001:db8::/32)" />
      </label>
      <RulesEditor rules={rules} onChange={setRules} />
      <button type="submit" class="primary" disabled={create.busy}>
        Create access key
      </button>
      <ErrorBox error={create.error} />
    </form>
  );
}

/** Changes to a key's name, rules and networks (PATCH: only what changed is sent, and audited). */
export function EditKeyForm({
  accessKey,
  onSaved,
  onCancel,
}: {
  accessKey: Schemas['AccessKey'];
  onSaved: (updated: Schemas['AccessKey']) => void;
  onCancel: () => void;
}) {
  const { client } = useSession();
  const [name, setName] = useState(accessKey.name);
  const [cidrs, setCidrs] = useState(accessKey.allowedCidrs.join(', '));
  const [rules, setRules] = useState<RuleDraft[]>(accessKey.permissions.map(draftOf));
  const save = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const permissions = permissionsOf(rules);
    const allowedCidrs = splitList(cidrs);
    const body = {
      ...(name !== accessKey.name ? { name } : {}),
      ...(JSON.stringify(permissions.map(filled)) !== JSON.stringify(accessKey.permissions) ? { permissions } : {}),
      ...(JSON.stringify(allowedCidrs) !== JSON.stringify(accessKey.allowedCidrs) ? { allowedCidrs } : {}),
    };
    if (Object.keys(body).length === 0) return onCancel();
    const updated = await save.run(async () =>
      unwrap(await client.api.PATCH('/api/v1/access-keys/{id}', { params: { path: { id: accessKey.id } }, body })),
    );
    if (updated) onSaved(updated);
  };
  return (
    <form class="key-form edit" aria-label={`Edit ${accessKey.name}`} onSubmit={submit}>
      <h2>Edit {accessKey.name}</h2>
      <label>
        Name
        <input value={name} onInput={(event) => setName(valueOf(event))} required maxLength={120} />
      </label>
      <label class="wide">
        Allowed CIDRs
        <textarea rows={2} value={cidrs} onInput={(event) => setCidrs(valueOf(event))} placeholder="anywhere" />
      </label>
      <RulesEditor rules={rules} onChange={setRules} />
      <div class="actions">
        <button type="submit" class="primary" disabled={save.busy}>
          Save changes
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <ErrorBox error={save.error} />
    </form>
  );
}
