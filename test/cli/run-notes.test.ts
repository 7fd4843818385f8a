/** The notes before a run, each said once: --runs scaled by the quota and then by the budget is one note. */
import { describe, expect, it } from 'vitest';
import { runNotes } from '../../cli/run-notes.js';

const quota =
  'the free key has about 1000 requests left; the run needs about 125051, so --runs was scaled from 100000 to 666';
const budget =
  'the request budget (60) covers about 59 more requests: every case class first (51 requests), then --runs scaled from 666 to 1';

describe('runNotes', () => {
  it('two scalings of --runs become one note, from the first value to the last, with both reasons', () => {
    expect(runNotes(['a', quota, 'b', budget])).toEqual([
      'a',
      '--runs was scaled from 100000 to 1: the free key has about 1000 requests left; the run needs about 125051; and ' +
        'the request budget (60) covers about 59 more requests: every case class first (51 requests)',
      'b',
    ]);
  });
  it('one scaling and other notes stay as they are; a repeated note is said once', () => {
    expect(runNotes([quota, 'x', 'x'])).toEqual([quota, 'x']);
    expect(runNotes([budget])).toEqual([budget]);
  });
});
