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
export function registerSecret(key: ApiKey): ApiKey {
  known.add(key);
  return key;
}
export function knownSecrets(): ApiKey[] {
  return [...known];
}

/** Replaces every known secret in text by its placeholder. */
export function scrub(text: string): string {
  let out = text;
  for (const k of known) {
    const v = k.reveal();
    if (v.length > 0 && out.includes(v)) out = out.split(v).join(k.placeholder);
  }
  return out;
}
