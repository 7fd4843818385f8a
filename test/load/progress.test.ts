import { describe, expect, it } from 'vitest';
import { createProgress } from '../../load/progress.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { stream: { isTTY, write: (t: string) => chunks.push(t) }, chunks };
}

describe('progress', () => {
  it('on a terminal rewrites one line with scenario, time left and req/s', () => {
    let now = 0;
    const { stream, chunks } = sink(true);
    const p = createProgress(stream, () => now);
    p.scenarioStarted('mix', 10);
    now = 3000;
    p.tick(1234.4);
    p.scenarioDone('mix: done');
    expect(chunks).toEqual(['\r\x1b[2Kmix · 7s left · 1234 req/s', '\r\x1b[2Kmix: done\n']);
  });

  it('elsewhere prints plain lines, a progress line at most every 10 s', () => {
    let now = 0;
    const { stream, chunks } = sink(false);
    const p = createProgress(stream, () => now);
    p.scenarioStarted('mix', 30);
    for (let s = 1; s <= 25; s++) {
      now = s * 1000;
      p.tick(100);
    }
    p.scenarioDone('mix: done');
    expect(chunks).toEqual([
      'load: mix (up to 30s)\n',
      'load: mix · 20s left · 100 req/s\n',
      'load: mix · 10s left · 100 req/s\n',
      'load: mix: done\n',
    ]);
    expect(chunks.join('')).not.toContain('\r');
  });
});

describe('profile budgets', () => {
  it('smoke fits a minute against the embedded default; nightly fits 15 minutes even with a 60 s window', async () => {
    const { PROFILES, plannedSeconds, profileNamed } = await import('../../load/profiles.js');
    expect(plannedSeconds(PROFILES.smoke, PROFILES.smoke.embeddedWindowSeconds)).toBeLessThanOrEqual(30);
    expect(plannedSeconds(PROFILES.nightly, PROFILES.nightly.embeddedWindowSeconds)).toBeLessThan(15 * 60);
    expect(plannedSeconds(PROFILES.nightly, 60)).toBeLessThanOrEqual(14 * 60);
    expect(() => profileNamed('weekly')).toThrow(/unknown profile/);
  });
});
