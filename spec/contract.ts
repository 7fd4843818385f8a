/**
 * The contract, loaded once from petstore.openapi.yaml and frozen. Nothing else reads the YAML, re-types an enum or
 * repeats a number the document holds: operations, statuses, parameter constraints and plan limits all come from here.
 */
import { fileURLToPath } from 'node:url';
import { parseYaml, readYamlData } from './yaml-data.js';

export type OperationId = 'listPets' | 'createPet' | 'getPet';
export type PlanName = 'free' | 'pro' | 'business' | 'enterprise';
export type JsonSchema = { [key: string]: unknown };

export interface ParameterSpec {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly required: boolean;
  readonly schema: JsonSchema;
}

export interface ResponseSpec {
  readonly status: number;
  readonly description: string;
  /** Schema of the application/json body, with refs resolved; null when the response documents no body. */
  readonly schema: JsonSchema | null;
  /** Header names the response documents as required, lower-cased. */
  readonly requiredHeaders: readonly string[];
}

export interface OperationSpec {
  readonly id: OperationId;
  readonly method: 'GET' | 'POST';
  /** Path template relative to the base address, e.g. /pets/{petId}. */
  readonly path: string;
  readonly deprecated: boolean;
  readonly removalDate: string | null;
  readonly parameters: readonly ParameterSpec[];
  readonly requestBodySchema: JsonSchema | null;
  readonly responses: ReadonlyMap<number, ResponseSpec>;
  readonly requiresAuth: boolean;
}

export interface PlanLimits {
  readonly requestsPerMinute: number;
  readonly requestsPerDay: number;
}

export interface Contract {
  readonly version: string;
  readonly serverUrls: readonly string[];
  readonly operations: ReadonlyMap<OperationId, OperationSpec>;
  /** Component schemas with refs resolved (Pet, NewPet, PetStatus, Pets, Error). */
  readonly schemas: Readonly<Record<string, JsonSchema>>;
  readonly petStatuses: readonly string[];
  /** Plans with fixed limits; enterprise is custom (configured per key). */
  readonly plans: Readonly<Partial<Record<PlanName, PlanLimits>>>;
  readonly planNames: readonly PlanName[];
  readonly rateLimitHeaders: readonly string[];
  /** The raw parsed document, for the OpenAPI validation test and the ajv bundle. */
  readonly document: JsonSchema;
}

const specUrl = new URL('./petstore.openapi.yaml', import.meta.url);
export const specPath = fileURLToPath(specUrl);

function pointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`spec: only local $ref is supported, got ${ref}`);
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/')) {
    node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`spec: unresolved $ref ${ref}`);
  }
  return node;
}

/** Resolves every local $ref; the document has no cycles, so plain inlining terminates. */
function resolve(doc: unknown, node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => resolve(doc, n));
  if (node && typeof node === 'object') {
    const obj = node as Record<string, unknown>;
    if (typeof obj.$ref === 'string') return resolve(doc, pointer(doc, obj.$ref));
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, resolve(doc, v)]));
  }
  return node;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** The resolved OpenAPI document, walked as plain JSON (the contract test validates it against OpenAPI 3.1's schema). */
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document read field by field
type Untyped = any;

/** The contract of the spec's YAML, or of `text` (a changed copy, in tests). */
export function loadContract(text?: string): Contract {
  const document = (text === undefined ? readYamlData(specUrl) : parseYaml(text)) as JsonSchema;
  const resolved = resolve(document, document) as Untyped;
  const operations = new Map<OperationId, OperationSpec>();
  for (const [path, item] of Object.entries<Untyped>(resolved.paths ?? {})) {
    for (const method of ['get', 'post'] as const) {
      const op = item[method];
      if (!op) continue;
      const responses = new Map<number, ResponseSpec>();
      for (const [code, r] of Object.entries<Untyped>(op.responses ?? {})) {
        responses.set(Number(code), {
          status: Number(code),
          description: String(r.description ?? ''),
          schema: r.content?.['application/json']?.schema ?? null,
          requiredHeaders: Object.entries<Untyped>(r.headers ?? {})
            .filter(([, h]) => h.required)
            .map(([name]) => name.toLowerCase()),
        });
      }
      const security = op.security ?? resolved.security ?? [];
      operations.set(op.operationId, {
        id: op.operationId,
        method: method.toUpperCase() as 'GET' | 'POST',
        path,
        deprecated: op.deprecated === true,
        removalDate: op['x-removal-date'] ?? null,
        parameters: (op.parameters ?? []).map((p: Untyped) => ({
          name: p.name,
          in: p.in,
          required: p.required === true,
          schema: p.schema ?? {},
        })),
        requestBodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
        responses,
        requiresAuth: security.length > 0,
      });
    }
  }
  const plans: Partial<Record<PlanName, PlanLimits>> = {};
  for (const [name, p] of Object.entries<Untyped>(resolved['x-plans'] ?? {})) {
    if (!p.custom)
      plans[name as PlanName] = { requestsPerMinute: p.requestsPerMinute, requestsPerDay: p.requestsPerDay };
  }
  const contract: Contract = {
    version: resolved.info.version,
    serverUrls: resolved.servers.map((s: Untyped) => s.url),
    operations,
    schemas: resolved.components.schemas,
    petStatuses: resolved.components.schemas.PetStatus.enum,
    plans,
    planNames: Object.keys(resolved['x-plans'] ?? {}) as PlanName[],
    rateLimitHeaders: Object.keys(resolved['x-rate-limit-headers'] ?? {}).map((h) => h.toLowerCase()),
    document,
  };
  for (const op of operations.values()) deepFreeze(op);
  deepFreeze(contract.schemas);
  return Object.freeze(contract);
}

/** The contract of this project, loaded once per process. */
export const contract: Contract = loadContract();

export function operation(id: OperationId): OperationSpec {
  const op = contract.operations.get(id);
  if (!op) throw new Error(`spec: no operation ${id}`);
  return op;
}

export function parameter(op: OperationId, name: string): ParameterSpec {
  const p = operation(op).parameters.find((x) => x.name === name);
  if (!p) throw new Error(`spec: ${op} has no parameter ${name}`);
  return p;
}
