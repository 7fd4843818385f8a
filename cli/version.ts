import { readFileSync } from 'node:fs';

let version: string | null = null;
export function toolVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return version;
}
