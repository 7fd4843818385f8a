/** The model test's agreement with the target: the command computes it, this check turns a disagreement into a finding. */
import type { Exchange } from '../http/exchange.js';
import { defineCheck, finding, type Check } from './check.js';
import { guarded, isRateLimited } from './facts.js';

export interface ModelEvidence {
  readonly exchange: Exchange;
  /** What the model expects, in words. */
  readonly expected: string;
  /** What the target did, in words. */
  readonly actual: string;
  readonly ok: boolean;
}

export const modelConsistency: Check<ModelEvidence> = defineCheck({
  id: 'model-consistency',
  clause: '4.2-create-retrievable',
  level: 'violation',
  area: 'stateful',
  title: 'The target agrees with a model of the catalogue across a sequence of operations.',
  run: guarded(
    () => modelConsistency,
    ({ exchange: ex, expected, actual, ok }) => {
      // 429 is documented everywhere: the model cannot know what the target would have answered.
      if (ok || isRateLimited(ex)) return [];
      return [
        finding(
          modelConsistency,
          ex,
          `received ${String(actual).slice(0, 200)}\nthe model of the spec expects ${String(expected).slice(0, 200)}`,
          {
            expected: String(expected),
            actual: String(actual),
          },
        ),
      ];
    },
  ),
});
