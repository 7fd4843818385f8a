/** A check's id (issue 30: to be derived from the registry, so that a renamed check fails the type check). */
export type CheckId = string;
