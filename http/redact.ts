/**
 * Secrets by construction. An ApiKey refuses to serialize itself; the only way to its value is `reveal()`, called by
 * the HTTP layer when it writes the Authorization header. Recorded exchanges, curl lines and replay files carry the
 * placeholder $PETSTORE_API_KEY_<PLAN> instead.
 */
import { inspect } from 'node:util';

const values = new WeakMap<ApiKey, string>();

export class ApiKey {
  readonly placeholder: string;
  constructor(
    value: string,
    readonly label: string,
  ) {
    values.set(this, value);
    this.placeholder = `$PETSTORE_API_KEY_${label.toUpperCase()}`;
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

/** Every secret the process knows, so that text leaving it can be scrubbed as a last gate. */
const known = new Set<ApiKey>();
/** The non-empty secrets' values and placeholders, and the shortest value's length (rebuilt when one is added). */
let secrets: { readonly value: string; readonly placeholder: string }[] | null = null;
let shortest = 0;
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
  }
  if (text.length < shortest) return text;
  let out = text;
  for (const k of secrets) if (out.includes(k.value)) out = out.split(k.value).join(k.placeholder);
  return out;
}
