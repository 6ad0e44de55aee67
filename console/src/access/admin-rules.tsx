import { splitList, valueOf, type Schemas } from '../ui/admin-ui.tsx';

/** A rule as the API answers it (every default filled in) and the actions it names (decisions.md, "Permissions of access keys"). */
export type Rule = Schemas['AccessKey']['permissions'][number];
export type Action = Rule['actions'][number];
export const ACTIONS: readonly Action[] = ['read', 'reveal', 'write', 'delete'];

/** A rule as the editor holds it: the pattern lists as typed (comma- or line-separated), so typing is never rewritten. */
export interface RuleDraft {
  effect: 'allow' | 'deny';
  projects: string;
  environments: string;
  keys: string;
  actions: Action[];
}

/** A new rule: least privilege, `read` of everything, for the person to narrow. */
export function newRule(): RuleDraft {
  return { effect: 'allow', projects: '', environments: '', keys: '', actions: ['read'] };
}

/** The editor's form of a rule the API answered. */
export function draftOf(rule: Rule): RuleDraft {
  return {
    effect: rule.effect,
    projects: rule.projects.join(', '),
    environments: rule.environments.join(', '),
    keys: rule.keys.join(', '),
    actions: [...rule.actions],
  };
}

/** The rule a request sends: an empty list is left out, so the API fills in its default (`*`, `*`, `**`). */
export function ruleOf(
  draft: RuleDraft,
): Omit<Rule, 'projects' | 'environments' | 'keys'> & Partial<Pick<Rule, 'projects' | 'environments' | 'keys'>> {
  const lists = (['projects', 'environments', 'keys'] as const).flatMap((field) => {
    const values = splitList(draft[field]);
    return values.length > 0 ? [[field, values] as const] : [];
  });
  return { effect: draft.effect, ...Object.fromEntries(lists), actions: ACTIONS.filter((action) => draft.actions.includes(action)) };
}

/** One line for a rule: `allow read, reveal on payments / prod / DB_*`. */
export function ruleSummary(rule: Rule): string {
  return `${rule.effect} ${rule.actions.join(', ')} on ${rule.projects.join(',')} / ${rule.environments.join(',')} / ${rule.keys.join(',')}`;
}

/**
 * The rules of an access key, edited as fields (no JSON to type): per rule its effect, the project, environment and
 * key patterns, and the actions. No rule at all leaves the key the API's default: every action on every secret.
 */
export function RulesEditor({ rules, onChange }: { rules: RuleDraft[]; onChange: (rules: RuleDraft[]) => void }) {
  const change = (index: number, patch: Partial<RuleDraft>) =>
    onChange(rules.map((rule, i) => (i === index ? { ...rule, ...patch } : rule)));
  return (
    <fieldset class="rules">
      <legend>Permissions</legend>
      <p class="muted hint">
        Patterns are comma- or line-separated globs: <code>*</code> any run without <code>/</code>, <code>**</code> any run with it,{' '}
        <code>?</code> one character. An empty list means every project, environment or key. A deny rule wins over an allow rule.
      </p>
      {rules.length === 0 && <p class="warning">No rules: the key may read, reveal, write and delete every secret of the workspace.</p>}
      {rules.map((rule, index) => (
        <RuleFields
          key={index}
          index={index}
          rule={rule}
          onChange={(patch) => change(index, patch)}
          onRemove={() => onChange(rules.filter((_, i) => i !== index))}
        />
      ))}
      <button type="button" onClick={() => onChange([...rules, newRule()])} disabled={rules.length >= 50}>
        Add rule
      </button>
    </fieldset>
  );
}

function RuleFields({
  index,
  rule,
  onChange,
  onRemove,
}: {
  index: number;
  rule: RuleDraft;
  onChange: (patch: Partial<RuleDraft>) => void;
  onRemove: () => void;
}) {
  const name = `Rule ${index + 1}`;
  const toggle = (action: Action, on: boolean) =>
    onChange({ actions: on ? [...rule.actions, action] : rule.actions.filter((a) => a !== action) });
  const list = (field: 'projects' | 'environments' | 'keys', label: string, placeholder: string) => (
    <label>
      {label}
      <textarea rows={2} value={rule[field]} placeholder={placeholder} onInput={(event) => onChange({ [field]: valueOf(event) })} />
    </label>
  );
  return (
    <fieldset class={`rule ${rule.effect}`}>
      <legend>{name}</legend>
      <label>
        Effect
        <select value={rule.effect} onChange={(event) => onChange({ effect: valueOf(event) as RuleDraft['effect'] })}>
          <option value="allow">allow</option>
          <option value="deny">deny</option>
        </select>
      </label>
      {list('projects', 'Projects', '* (every project)')}
      {list('environments', 'Environments', '* (every environment)')}
      {list('keys', 'Keys', '** (every key)')}
      <fieldset class="rule-actions">
        <legend>Actions</legend>
        {ACTIONS.map((action) => (
          <label class="check" key={action}>
            <input
              type="checkbox"
              checked={rule.actions.includes(action)}
              onChange={(event) => toggle(action, (event.currentTarget as HTMLInputElement).checked)}
            />
            {action}
          </label>
        ))}
      </fieldset>
      <button type="button" class="danger" aria-label={`Remove rule ${index + 1}`} onClick={onRemove}>
        Remove
      </button>
    </fieldset>
  );
}
