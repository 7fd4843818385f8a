/** The tool's version, read from package.json in this one place, and the User-Agent every request carries with it. */
import { readFileSync } from 'node:fs';

let version: string | null = null;
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return version;
}

/** Operators tell the gate's traffic apart in their logs by this. */
export function userAgent(): string {
  return `petstore-conformance/${toolVersion()}`;
}
