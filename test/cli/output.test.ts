/**
 * On a terminal, a status line rewritten in place (`\r…` with no newline, as a countdown writes it) is cleared before
 * anything else is written and when the command ends: no half-written status is left in front of the result or on
 * the shell's next line. Piped, nothing but the text itself is written.
 */
import { describe, expect, it } from 'vitest';
import { CLEAR_LINE, processOutput } from '../../cli/output.js';

/** stdout and stderr of one terminal, written in order to one screen. */
function terminal(isTTY: boolean) {
  const screen: string[] = [];
  const stream = (name: string) => ({ isTTY, write: (t: string) => screen.push(`${name}:${t}`) > 0 });
  return { screen, stdout: stream('out'), stderr: stream('err') };
}

describe('processOutput', () => {
  it('on a terminal: a status line left open is cleared before the result, a progress line, and at the end', () => {
    const t = terminal(true);
    const out = processOutput(t.stdout, t.stderr);
    t.stderr.write('\rwaiting 3 s: the free key window');
    out.progress('running auth');
    t.stderr.write('\rwaiting 2 s: the free key window');
    out.result('✓ conformant\n');
    t.stderr.write('\rwaiting 1 s: the free key window');
    out.end!();
    expect(t.screen).toEqual([
      'err:\rwaiting 3 s: the free key window',
      `err:${CLEAR_LINE}running auth\n`,
      'err:\rwaiting 2 s: the free key window',
      `err:${CLEAR_LINE}`,
      'out:✓ conformant\n',
      'err:\rwaiting 1 s: the free key window',
      `err:${CLEAR_LINE}`,
    ]);
  });

  it('piped: no control characters are added', () => {
    const t = terminal(false);
    const out = processOutput(t.stdout, t.stderr);
    out.progress('running auth');
    out.result('✓ conformant\n');
    out.error('bad [PSC_USAGE]');
    out.end!();
    expect(t.screen.join('')).not.toMatch(/[\r\x1b]/);
  });
});
