/**
 * The commands a run prints start the way the user started the tool: `npx petstore-conformance` under npx or an npm
 * script, `petstore-conformance` when that command is on PATH, `node <script>` otherwise.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { invocationOf } from '../../config/config.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir('psc-invocation-');
const script = join(dir, 'pkg', 'bin', 'petstore-conformance.js');
mkdirSync(join(dir, 'pkg', 'bin'), { recursive: true });
writeFileSync(script, '');
const binDir = join(dir, 'usr-bin');
mkdirSync(binDir);
symlinkSync(script, join(binDir, 'petstore-conformance'));

describe('invocationOf', () => {
  it('through npx or npm exec (npm_command=exec, npm_lifecycle_event=npx): npx petstore-conformance', () => {
    expect(invocationOf({ npm_command: 'exec', npm_lifecycle_event: 'npx' }, script, dir)).toBe(
      'npx petstore-conformance',
    );
  });
  it('from an npm script: npx petstore-conformance (npx finds the same command)', () => {
    expect(invocationOf({ npm_lifecycle_event: 'start', npm_command: 'run-script' }, script, dir)).toBe(
      'npx petstore-conformance',
    );
  });
  it('the command on PATH (a global install or npm link): petstore-conformance', () => {
    expect(invocationOf({ PATH: `/nowhere:${binDir}` }, join(binDir, 'petstore-conformance'), dir)).toBe(
      'petstore-conformance',
    );
  });
  it('node with the script: relative to the working directory when inside it, else absolute', () => {
    expect(invocationOf({ PATH: '/nowhere' }, script, join(dir, 'pkg'))).toBe('node bin/petstore-conformance.js');
    expect(invocationOf({ PATH: '/nowhere' }, script, '/')).toBe(`node ${script.slice(1)}`);
    expect(invocationOf({ PATH: '/nowhere' }, script, join(dir, 'elsewhere'))).toBe(`node ${script}`);
  });
  it('a local install run by path: npx petstore-conformance', () => {
    expect(invocationOf({ PATH: '/nowhere' }, '/p/node_modules/.bin/petstore-conformance', '/p')).toBe(
      'npx petstore-conformance',
    );
  });
  it('not started as this tool (embedded, tests): the README’s npx petstore-conformance', () => {
    expect(invocationOf({}, '/x/vitest/dist/workers/forks.js', '/')).toBe('npx petstore-conformance');
    expect(invocationOf({}, undefined)).toBe('npx petstore-conformance');
  });
});
