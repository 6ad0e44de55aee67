import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Every answer the integration tests receive is checked against docs/openapi.json: the route must document the
 * status, and the body must match that status's schema. So every integration test is also a contract test, and
 * an answer with an undocumented status or shape fails the test that made it.
 */
type Operation = { responses: Record<string, { content?: { 'application/json'?: { schema: object } } }> };
type Document = {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, { post: { requestBody: { content: { 'application/json': { schema: object } } } } }>;
  components: object;
};

const document = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as Document;
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (ajv: Ajv2020) => void)(ajv);
const compiled = new Map<string, ValidateFunction>();

/** Path templates, literal segments first (as API Gateway prefers them), as regular expressions. */
const templates = Object.keys(document.paths)
  .map((template) => ({
    template,
    params: (template.match(/\{/g) ?? []).length,
    pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  }))
  .sort((a, b) => a.params - b.params);

function operationOf(method: string, path: string): { template: string; operation: Operation } | undefined {
  for (const { template, pattern } of templates) {
    const operation = document.paths[template]?.[method.toLowerCase()];
    if (operation && pattern.test(path)) return { template, operation };
  }
  return undefined;
}

/** Throws, naming the route and what is wrong, when an answer does not match the document. */
export function checkAnswer(method: string, url: string, status: number, body: unknown): void {
  const path = new URL(url, 'http://x').pathname;
  const found = operationOf(method, path);
  // API Gateway's own 404 for a path or method that matches no route: before any function, outside the document.
  if (!found) {
    if (status === 404 && JSON.stringify(body) === '{"message":"Not Found"}') return;
    throw new Error(`${method} ${path}: answered ${status}, but the document has no such operation`);
  }
  const response = found.operation.responses[String(status)];
  if (!response) throw new Error(`${method} ${found.template}: status ${status} is not in the document`);
  const schema = response.content?.['application/json']?.schema;
  if (!schema) return;
  const key = `${method} ${found.template} ${status}`;
  let validate = compiled.get(key);
  if (!validate) {
    validate = ajv.compile({ ...schema, components: document.components });
    compiled.set(key, validate);
  }
  if (!validate(body)) throw new Error(`${key}: the answer does not match the document: ${ajv.errorsText(validate.errors)}`);
}

/** Throws when a delivered event's body does not match the document's `webhooks` entry for its type. */
export function checkWebhookEvent(body: { type: string }): void {
  const entry = document.webhooks[body.type] as Document['webhooks'][string] | undefined;
  if (!entry) throw new Error(`event type ${body.type} is not in the document`);
  const validate = ajv.compile(entry.post.requestBody.content['application/json'].schema);
  const type = body.type;
  if (!validate(body)) throw new Error(`${type}: the event does not match the document: ${ajv.errorsText(validate.errors)}`);
}
