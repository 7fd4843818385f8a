/**
 * The documentation's links stay inside the repository and lead somewhere: every relative Markdown link and every
 * path written in backquotes that climbs out (`../…`) of README.md, ARCHITECTURE.md and docs/ is checked against the
 * files of the checkout.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(new URL('../..', import.meta.url).pathname);
const docs = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** Relative link targets of a Markdown text, without their #fragment; links to the web are not ours to check. */
function links(text: string): string[] {
  const found = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
  return found.filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l) && !l.startsWith('#')).map((l) => l.replace(/#.*$/, ''));
}

describe.each(docs)('%s', (doc) => {
  const text = readFileSync(join(root, doc), 'utf8');

  it('every relative link leads to a file or folder inside the repository', () => {
    for (const link of links(text)) {
      const target = resolve(dirname(join(root, doc)), link);
      expect(relative(root, target).startsWith('..'), `${link} leaves the repository`).toBe(false);
      expect(existsSync(target), `${link} exists`).toBe(true);
    }
  });

  it('no path in backquotes climbs out of the repository', () => {
    expect(text.match(/`\.\.\/[^`]*`/g) ?? []).toEqual([]);
  });
});
