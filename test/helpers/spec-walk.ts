// The bundled spec as the fuzzer and the authorization sweep read it: its operations, and
// every request field (body or query) that names one of the caller's records, found by name
// and description so a new operation with such a field is swept without anyone listing it.
import { readFileSync } from 'node:fs';
import { inProject } from './project.js';

export type Schema = Record<string, any>;

export const spec: Schema = JSON.parse(readFileSync(inProject('generated', 'openapi.json'), 'utf8'));

/** Follows `$ref`s of the bundled document. */
export function resolve(schema: Schema | undefined): Schema {
  let node = schema ?? {};
  while (node.$ref) node = (node.$ref as string).slice(2).split('/').reduce((at: any, key: string) => at?.[key.replace(/~1/g, '/')], spec) ?? {};
  return node;
}

export interface SpecOperation {
  operationId: string;
  method: string;
  /** As written in the spec, relative to `/api`, e.g. `/v1/wallets/{id}`. */
  path: string;
  public: boolean;
  admin: boolean;
  parameters: Schema[];
  /** Request body schemas by media type. */
  bodies: Record<string, Schema>;
  bodyRequired: boolean;
  /** Statuses the operation documents. */
  statuses: string[];
}

export const operations: SpecOperation[] = Object.entries<Record<string, Schema>>(spec.paths).flatMap(([template, item]) =>
  Object.entries(item)
    .filter(([, op]) => op?.operationId)
    .map(([method, op]) => {
      const body = resolve(op.requestBody);
      return {
        operationId: op.operationId,
        method: method.toUpperCase(),
        path: template,
        public: Array.isArray(op.security) && op.security.length === 0,
        admin: (op.tags ?? []).includes('Admin'),
        parameters: [...((item.parameters ?? []) as Schema[]), ...((op.parameters ?? []) as Schema[])].map(resolve),
        bodies: Object.fromEntries(Object.entries<Schema>(body.content ?? {}).map(([type, media]) => [type, media.schema ?? {}])),
        bodyRequired: body.required === true,
        statuses: Object.keys(op.responses ?? {}),
      };
    }),
);

/** Properties of an object schema, through allOf/oneOf/anyOf, with its required names. */
export function objectShape(schema: Schema | undefined): { properties: Record<string, Schema>; required: string[] } {
  const s = resolve(schema);
  const properties: Record<string, Schema> = { ...(s.properties ?? {}) };
  const required: string[] = [...(s.required ?? [])];
  for (const part of s.allOf ?? []) {
    const inner = objectShape(part);
    Object.assign(properties, inner.properties);
    required.push(...inner.required);
  }
  return { properties, required };
}

// ---- reference fields -----------------------------------------------------------------------

/** What a reference field names. `target` is a budget target, whose kind its sibling `type` gives. */
export type ReferenceKind =
  | 'wallet'
  | 'party'
  | 'group'
  | 'category'
  | 'budget'
  | 'expense'
  | 'expense-client-id'
  | 'import-session'
  | 'failed-import-row'
  | 'user'
  | 'target';

/** Reference fields by their name (the last segment of the field path). */
const KIND_BY_NAME: Record<string, ReferenceKind> = {
  wallet_id: 'wallet',
  wallet_ids: 'wallet',
  from_wallet_id: 'wallet',
  to_wallet_id: 'wallet',
  party_id: 'party',
  party_ids: 'party',
  group_id: 'group',
  category_id: 'category',
  category_ids: 'category',
  categories: 'category',
  budget_id: 'budget',
  original_transaction_id: 'expense',
  original_client_id: 'expense-client-id',
  session_id: 'import-session',
  pair_id: 'failed-import-row',
  user_ids: 'user',
};

/** Reference fields whose name alone is ambiguous (`id`), by their full field path. */
const KIND_BY_PATH: Record<string, ReferenceKind> = {
  'targets[].id': 'target',
  'owner.id': 'user',
  '[].id': 'failed-import-row',
};

/** Id-like fields that name none of the caller's records, and why. */
export const NOT_REFERENCES: Record<string, string> = {
  client_id: "the new or updated record's own client id (per user: test/sync-feeds.test.ts)",
  expense_transaction_client_id: "the new expense leg's own client id",
  income_transaction_client_id: "the new income leg's own client id",
  no_client_id: 'a flag, not an id',
  id_token: "an OAuth provider's token",
  ids: "the asset-price provider's coin ids",
};

export interface ReferenceField {
  operationId: string;
  /** `body` (with its media type) or `query`. */
  location: 'body' | 'query';
  mediaType?: string;
  /** Dotted path, `[]` for array items: `targets[].id`, `overrides.wallet_id`, `wallet_ids`. */
  field: string;
  kind: ReferenceKind | undefined;
}

const looksLikeReference = (name: string, schema: Schema) => {
  const bare = name.replace(/\[\]$/, '');
  const integers = schema.type === 'integer' || (schema.type === 'array' && resolve(schema.items).type === 'integer');
  return /(^|_)ids?$/.test(bare) || bare in KIND_BY_NAME || (integers && /\bids?\b/i.test(schema.description ?? ''));
};

/**
 * Every field of a request that names a record: by name (`*_id`, `*_ids`, `id`), by a
 * description saying "ids of the caller's ...", and keys documented in the description of a
 * free-form object (`overrides`). `kind` is undefined for a field this module cannot map.
 */
export function referenceFields(): ReferenceField[] {
  const out: ReferenceField[] = [];
  for (const op of operations) {
    const add = (location: 'body' | 'query', field: string, mediaType?: string) => {
      const name = field.replace(/\[\]$/, '').split(/[.[\]]+/).filter(Boolean).pop()!;
      if (name in NOT_REFERENCES) return;
      if (out.some((r) => r.operationId === op.operationId && r.location === location && r.field === field && r.mediaType === mediaType)) return;
      out.push({ operationId: op.operationId, location, mediaType, field, kind: KIND_BY_PATH[field] ?? KIND_BY_NAME[name] });
    };
    for (const parameter of op.parameters) {
      if (parameter.in === 'query' && looksLikeReference(parameter.name, { ...resolve(parameter.schema), description: parameter.description })) add('query', parameter.name);
    }
    for (const [mediaType, schema] of Object.entries(op.bodies)) {
      walkFields(schema, '', (field, name, fieldSchema) => {
        if (looksLikeReference(name, fieldSchema)) add('body', field, mediaType);
        // A free-form object documents its keys in prose: every `*_id`, `*_ids` or `categories` it names.
        if (fieldSchema.type === 'object' && fieldSchema.additionalProperties === true && !fieldSchema.properties) {
          for (const key of new Set((fieldSchema.description ?? '').match(/\b[a-z_]+_ids?\b|\bcategories\b/g) ?? [])) add('body', `${field}.${key}`, mediaType);
        }
      });
    }
  }
  return out;
}

/** Calls `visit` for every property under `schema`, with its dotted path. */
export function walkFields(schema: Schema | undefined, prefix: string, visit: (field: string, name: string, schema: Schema) => void, depth = 0): void {
  const s = resolve(schema);
  if (depth > 6) return;
  for (const part of [...(s.allOf ?? []), ...(s.oneOf ?? []), ...(s.anyOf ?? [])]) walkFields(part, prefix, visit, depth + 1);
  if (s.type === 'array' || s.items) walkFields(s.items, `${prefix}[]`, visit, depth + 1);
  for (const [name, property] of Object.entries<Schema>(s.properties ?? {})) {
    const field = prefix ? `${prefix}.${name}` : name;
    const resolved = resolve(property);
    visit(field, name, { ...resolved, description: property.description ?? resolved.description });
    walkFields(property, field, visit, depth + 1);
  }
}

// ---- path parameters ---------------------------------------------------------------------------

/** The record a path's `{id}` or `{key}` names, by the path's first segment after /v1. */
const KIND_BY_SEGMENT: Record<string, string> = {
  wallets: 'wallet',
  groups: 'group',
  parties: 'party',
  categories: 'category',
  configurations: 'configuration',
  transactions: 'transaction',
  files: 'file',
  transfer: 'transfer',
  transfers: 'transfer',
  budgets: 'budget',
  notifications: 'notification',
  reminders: 'reminder',
  admin: 'user',
  imports: 'file-import',
  import: 'import-session',
  ai: 'chat',
  webhooks: 'webhook-endpoint',
  push: 'push-subscription',
  'bank-connections': 'bank-connection',
  'bank-accounts': 'bank-account',
  rules: 'rule',
};

/** Parameters named after what they hold. */
const KIND_BY_PARAM: Record<string, string> = { file_id: 'file', chat: 'chat', message: 'message', action: 'action', driver: 'driver', delivery: 'webhook-delivery', tokenId: 'mcp-token', proposal: 'rule-proposal' };

/** The kind of record a path parameter names; throws for one it cannot tell, so a new route is mapped. */
export function pathRecordKind(template: string, param: string): string {
  const kind = param === 'id' || param === 'key' ? KIND_BY_SEGMENT[template.split('/')[2] ?? ''] : KIND_BY_PARAM[param];
  if (!kind) throw new Error(`${template}: cannot tell what {${param}} names; map it in test/helpers/spec-walk.ts`);
  return kind;
}
