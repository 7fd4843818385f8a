/**
 * examples/release.yml makes what the pinned installs use (issue 29): valid against GitHub's published workflow
 * schema; it tests before it releases, packs the tarball with bin/pack.js (the script test/build/install.test.ts
 * installs from), tags a commit that carries the build the action's install step looks for, and attaches the tarball
 * under the name and tag the README's download address and the recipes' PSC_TARBALL follow.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { readAction, workflowSchemaErrors } from './action-steps.js';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const text = read('examples/release.yml');
const workflow = parse(text) as {
  on: Record<string, unknown>;
  permissions: Record<string, string>;
  jobs: Record<string, { steps: { uses?: string; run?: string; id?: string }[] }>;
};
const steps = Object.values(workflow.jobs)[0]!.steps;
const at = (pattern: RegExp) => steps.findIndex((s) => pattern.test(s.run ?? ''));

/** The download address of a release tarball: tag v<version>, file petstore-conformance-<version>.tgz. */
const RELEASE_URL = /\/releases\/download\/v(\d+\.\d+\.\d+)\/petstore-conformance-\1\.tgz/g;

describe('examples/release.yml', () => {
  it("validates against GitHub's published workflow schema, and may push the tag and the release", () => {
    expect(workflowSchemaErrors(text, 'release.yml')).toEqual([]);
    expect(workflow.permissions.contents).toBe('write');
    expect(Object.keys(workflow.on)).toEqual(['workflow_dispatch']);
  });

  it('installs, tests, packs with bin/pack.js, tags the build, then releases the tarball, in that order', () => {
    const order = [
      /^npm ci\b/,
      /^npm test$/,
      /^node bin\/pack\.js release$/,
      /git tag "v\$VERSION"/,
      /gh release create/,
    ];
    const found = order.map(at);
    expect(
      found.every((i) => i >= 0),
      String(found),
    ).toBe(true);
    expect([...found].sort((a, b) => a - b)).toEqual(found);
    // The tag's commit carries the build the action looks for (its stamp included), not the tests' or the bench's.
    const tag = steps[found[3]!]!.run!;
    expect(tag).toContain("git add --force dist ':!dist/test' ':!dist/bench'");
    expect(readAction().runs.steps.find((s) => s.id === 'install')!.run).toContain('[ -f dist/.build-stamp ]');
    // The file attached is the one bin/pack.js writes (npm pack's name), under the tag v<version>.
    expect(steps[found[4]!]!.run).toContain('"v$VERSION" "release/petstore-conformance-$VERSION.tgz"');
  });

  it("the README's pinned install and the recipes download a tarball by the release's tag and name", () => {
    for (const file of ['README.md', 'examples/sharded-load.yml', 'examples/k8s-sharded-load.yaml']) {
      const urls = [...read(file).matchAll(RELEASE_URL)];
      expect(urls.length, file).toBeGreaterThan(0);
      // No other address of a release asset.
      expect(read(file).match(/\/releases\/download\/\S+/g)?.length, file).toBe(urls.length);
    }
  });
});
