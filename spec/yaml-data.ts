/**
 * Reads one of the spec's YAML files as data. The build (bin/build.js) writes each as JSON beside the built modules:
 * parsing JSON takes well under a millisecond where loading the YAML parser and parsing costs a start ~0.2 s, twice
 * per run (the CLI and the suites' worker). The YAML stays the one source: its JSON is used only when it is not older
 * than the YAML; otherwise, and when run from the sources, the YAML is parsed.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export function readYamlData(yaml: URL): unknown {
  const json = fileURLToPath(yaml).replace(/\.ya?ml$/, '.json');
  if (existsSync(json) && statSync(json).mtimeMs >= statSync(yaml).mtimeMs)
    return JSON.parse(readFileSync(json, 'utf8'));
  return parseYaml(readFileSync(yaml, 'utf8'));
}

/** The YAML parser, loaded only when a YAML file is actually parsed. */
export function parseYaml(text: string): unknown {
  return (require('yaml') as typeof import('yaml')).parse(text);
}
