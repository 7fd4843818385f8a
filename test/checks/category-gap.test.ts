// gap-2-category-record: a target that only accepts existing categories may answer 400 to a valid NewPet; until the
// run has seen it accept fresh categoryIds, that 400 is an observation, afterwards a violation.
import { expect, test } from 'vitest';
import { create201 } from '../../checks/create.js';
import { exchange, ERROR } from './fixtures.js';

const sent = { name: 'Rex', categoryId: '9223372036854775807' };
const rejected = exchange({ operation: 'createPet', status: 400, body: ERROR(400) });

test('a 400 before any fresh category was accepted is recorded, not failed', () => {
  const found = create201.run({ exchange: rejected, sent, nameEdge: false, categoriesOpen: false });
  expect(found.map((f) => [f.level, f.clause])).toEqual([['observation', 'gap-2-category-record']]);
});

test('a 400 once the target took fresh categories is a violation', () => {
  const found = create201.run({ exchange: rejected, sent, nameEdge: false, categoriesOpen: true });
  expect(found.map((f) => [f.level, f.checkId])).toEqual([['violation', 'create-201']]);
});
