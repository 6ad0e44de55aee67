import type { paths } from '@secrets-service/sdk/client';
import { valueOf } from '../ui/admin-ui.tsx';

/** A sync's request body as the API takes it (decisions.md v1.4, "Syncs"). */
export type NewSyncBody = paths['/api/v1/syncs']['post']['requestBody']['content']['application/json'];
export type DestinationType = NewSyncBody['destination']['type'];
export type SecretsManagerMode = 'secret-per-key' | 'json';

interface Field {
  name: string;
  label: string;
  required?: boolean;
  /** A credential: typed into a password field, sent once, never shown again. */
  secret?: boolean;
  placeholder?: string;
}

const AWS_ACCESS: Field[] = [
  { name: 'roleArn', label: 'Role ARN', placeholder: 'arn:aws:iam::123456789012:role/secrets-sync' },
  { name: 'externalId', label: 'External ID' },
  { name: 'kmsKeyId', label: 'KMS key ID' },
];

/** Each destination type's fields, in the order the form shows them; the optional ones are sent only when filled. */
export const DESTINATION_FIELDS: Record<DestinationType, Field[]> = {
  'github-actions': [
    { name: 'repository', label: 'Repository', required: true, placeholder: 'owner/repo' },
    { name: 'environment', label: 'GitHub environment' },
    { name: 'token', label: 'GitHub token', required: true, secret: true },
    { name: 'apiUrl', label: 'API URL', placeholder: 'https://api.github.com' },
  ],
  'aws-ssm': [
    { name: 'region', label: 'Region', required: true, placeholder: 'eu-west-1' },
    { name: 'pathPrefix', label: 'Path prefix', required: true, placeholder: '/app/prod/' },
    ...AWS_ACCESS,
  ],
  'aws-secrets-manager': [
    { name: 'region', label: 'Region', required: true, placeholder: 'eu-west-1' },
    { name: 'namePrefix', label: 'Name prefix', required: true, placeholder: 'app/prod/' },
    ...AWS_ACCESS,
  ],
};

/** The destination types a sync offers, as the form names them. */
export const DESTINATION_TYPES: { type: DestinationType; label: string }[] = [
  { type: 'github-actions', label: 'GitHub Actions' },
  { type: 'aws-ssm', label: 'AWS Parameter Store' },
  { type: 'aws-secrets-manager', label: 'AWS Secrets Manager' },
];

/**
 * The destination the API takes from what the form holds: the type's filled fields only (an empty optional field is
 * left out, so the API's default applies), and the Secrets Manager mode.
 */
export function destinationOf(type: DestinationType, values: Record<string, string>, mode: SecretsManagerMode): NewSyncBody['destination'] {
  const filled = Object.fromEntries(
    DESTINATION_FIELDS[type].flatMap(({ name }) => (values[name]?.trim() ? [[name, values[name]!.trim()]] : [])),
  );
  const extra = type === 'aws-secrets-manager' ? { mode } : {};
  // The API validates each field and names the one it refuses: the console does not second-guess it.
  return { type, ...filled, ...extra } as NewSyncBody['destination'];
}

/** The chosen type's fields, and for Secrets Manager its mode. */
export function DestinationFields({
  type,
  values,
  onValue,
  mode,
  onMode,
}: {
  type: DestinationType;
  values: Record<string, string>;
  onValue: (name: string, value: string) => void;
  mode: SecretsManagerMode;
  onMode: (mode: SecretsManagerMode) => void;
}) {
  return (
    <div class="fields">
      {DESTINATION_FIELDS[type].map((field) => (
        <label key={`${type}.${field.name}`}>
          {field.label}
          {!field.required && <span class="muted"> (optional)</span>}
          <FieldInput field={field} value={values[field.name] ?? ''} onValue={(value) => onValue(field.name, value)} />
        </label>
      ))}
      {type === 'aws-secrets-manager' && (
        <label>
          Mode
          <select value={mode} onChange={(e) => onMode(valueOf(e) as SecretsManagerMode)}>
            <option value="secret-per-key">one secret per key</option>
            <option value="json">one JSON secret</option>
          </select>
        </label>
      )}
    </div>
  );
}

/** A credential goes into a password field the browser does not fill or remember; the rest are plain text. */
function FieldInput({ field, value, onValue }: { field: Field; value: string; onValue: (value: string) => void }) {
  const common = { value, required: field.required, placeholder: field.placeholder, spellcheck: false };
  if (field.secret) return <input type="password" autocomplete="new-password" {...common} onInput={(e) => onValue(valueOf(e))} />;
  return <input type="text" autocomplete="off" {...common} onInput={(e) => onValue(valueOf(e))} />;
}
