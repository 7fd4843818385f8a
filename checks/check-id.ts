/**
 * A check's id: the union of the registry's ids, derived from it (issue 30), so that a renamed or removed check fails the
 * type check wherever its id is named (faults' `catches`, load's check lists, the tests' tables). A type-only import:
 * nothing of the registry runs here. An id read from a file is checked at run time by `isCheckId` (checks/registry.ts).
 */
import type { checkList } from './registry.js';

export type CheckId = (typeof checkList)[number]['id'];
