/**
 * Secrets by construction. An ApiKey refuses to serialize itself; the only way to its value is `reveal()`, called by
 * the HTTP layer when it writes the Authorization header. Recorded exchanges, curl lines and replay files carry the
 * placeholder $PETSTORE_API_KEY_<PLAN> instead.
 */
import { inspect } from 'node:util';

const values = new WeakMap<ApiKey, string>();

export class ApiKey {
  readonly placeholder: string;
  /** `placeholder`: what stands for the value in recorded text (default: the variable $PETSTORE_API_KEY_<LABEL>). */
  constructor(
    value: string,
    readonly label: string,
    placeholder?: string,
  ) {
    values.set(this, value);
    this.placeholder = placeholder ?? `$${keyVariable(label)}`;
  }
  reveal(): string {
    return values.get(this)!;
  }
  toString(): string {
    return `[redacted ${this.placeholder}]`;
  }
  toJSON(): string {
    return this.toString();
  }
  [inspect.custom](): string {
    return this.toString();
  }
}

/** The environment variable that holds a plan's key: PETSTORE_API_KEY_FREE. */
export const keyVariable = (label: string): string => `PETSTORE_API_KEY_${label.toUpperCase()}`;

/** A change of a key's value (null: it does not apply to this value) and the placeholder of the changed value. */
export interface KeyChange {
  readonly derive: (value: string) => string | null;
  readonly shown: (variable: string, value: string) => string;
}

const derived = new WeakMap<ApiKey, Map<KeyChange, ApiKey | null>>();

/**
 * A key changed (a near miss of it: another case, an accent), itself a secret: a near miss of a key is nearly the key,
 * so it is scrubbed from what the target sends and shown only as its placeholder. Made once per key and change.
 */
export function changedKey(key: ApiKey, change: KeyChange): ApiKey | null {
  let byChange = derived.get(key);
  if (byChange === undefined) {
    byChange = new Map();
    derived.set(key, byChange);
  }
  if (!byChange.has(change)) {
    const value = change.derive(key.reveal());
    byChange.set(
      change,
      value === null
        ? null
        : registerSecret(new ApiKey(value, key.label, change.shown(keyVariable(key.label), key.reveal()))),
    );
  }
  return byChange.get(change)!;
}

/** Every secret the process knows, so that text leaving it can be scrubbed as a last gate. */
const known = new Set<ApiKey>();
/**
 * The non-empty secrets' values and placeholders, the shortest value's length, and the longest prefix they all share
 * (rebuilt when one is added).
 */
let secrets: { readonly value: string; readonly placeholder: string }[] | null = null;
let shortest = 0;
let sharedPrefix = '';
export function registerSecret(key: ApiKey): ApiKey {
  known.add(key);
  secrets = null;
  return key;
}
export function knownSecrets(): ApiKey[] {
  return [...known];
}

/**
 * Replaces every known secret in text by its placeholder. Run on every header value and body the target sends, so
 * the values are gathered once, and text shorter than any secret (most header values) cannot hold one.
 */
export function scrub(text: string): string {
  if (secrets === null) {
    secrets = [...known].map((k) => ({ value: k.reveal(), placeholder: k.placeholder })).filter((k) => k.value !== '');
    shortest = Math.min(...secrets.map((k) => k.value.length));
    sharedPrefix = secrets.reduce((p, k) => {
      let n = 0;
      while (n < p.length && p.charCodeAt(n) === k.value.charCodeAt(n)) n++;
      return p.slice(0, n);
    }, secrets[0]?.value ?? '');
  }
  // Text that holds no secret's shared prefix holds no secret: one search instead of one per secret.
  if (text.length < shortest || (sharedPrefix.length >= 4 && !text.includes(sharedPrefix))) return text;
  let out = text;
  for (const k of secrets) if (out.includes(k.value)) out = out.split(k.value).join(k.placeholder);
  return out;
}
