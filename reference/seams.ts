/**
 * The seams of the reference server: every point a fault may change, with its conformant value. The handlers' hook
 * points (handlers.ts), the limiter's defects (limiter.ts) and the store's first id live in one flat record, so a
 * fault is one modifier of one named seam, and two faults that meet on a seam are seen before the server starts.
 *
 * A modifier either wraps a seam (it receives the previous implementation and changes part of what it does: wraps
 * compose, in catalogue order, each around the ones before) or replaces it (the previous one is dropped: a replacing
 * fault cannot be combined with any other fault of the same seam, since one of the two would silently vanish).
 */
import { conformant, type HandlerSeams } from './handlers.js';
import type { LimiterDefects } from './limiter.js';

export interface Seams extends HandlerSeams, Required<LimiterDefects> {
  /** The id the store assigns first; undefined: the server's idStart. */
  readonly firstId: bigint | undefined;
}

export type SeamName = keyof Seams;

export type Modifier = {
  [K in SeamName]:
    | { readonly seam: K; readonly kind: 'replace'; readonly value: Seams[K] }
    | { readonly seam: K; readonly kind: 'wrap'; readonly wrap: (prev: Seams[K]) => Seams[K] };
}[SeamName];

export function replace<K extends SeamName>(seam: K, value: Seams[K]): Modifier {
  return { seam, kind: 'replace', value } as Modifier;
}

export function wrap<K extends SeamName>(seam: K, by: (prev: Seams[K]) => Seams[K]): Modifier {
  return { seam, kind: 'wrap', wrap: by } as unknown as Modifier;
}

export const conformantSeams: Seams = Object.freeze({
  ...conformant,
  minuteSlack: 0,
  notEnforced: false,
  neverResets: false,
  chargeRejected: false,
  dailyNotEnforced: false,
  retryAfterHalved: false,
  sharedAcrossKeys: false,
  sharedCounter: false,
  perRoute: false,
  banOnLimit: false,
  lostIncrementsMs: 0,
  dayLostIncrementsMs: 0,
  firstId: undefined,
});

/** A modifier and the name it is known by (a fault id), for the error that refuses a combination. */
export interface NamedModifier {
  readonly id: string;
  readonly apply: Modifier;
}

/** The seams with every modifier applied, in the order given; throws when a replacement meets another modifier. */
export function composeSeams(modifiers: readonly NamedModifier[]): Seams {
  const bySeam = new Map<SeamName, NamedModifier[]>();
  for (const m of modifiers) bySeam.set(m.apply.seam, [...(bySeam.get(m.apply.seam) ?? []), m]);
  for (const [seam, list] of bySeam) {
    const replacing = list.find((m) => m.apply.kind === 'replace');
    if (replacing && list.length > 1) {
      const others = list.filter((m) => m !== replacing).map((m) => m.id);
      throw new Error(
        `reference: faults ${[replacing.id, ...others].join(', ')} cannot be combined: ${replacing.id} replaces the ` +
          `"${seam}" seam, which ${others.join(', ')} also ${others.length > 1 ? 'change' : 'changes'}`,
      );
    }
  }
  const seams: Record<string, unknown> = { ...conformantSeams };
  for (const { apply } of modifiers) {
    seams[apply.seam] =
      apply.kind === 'replace' ? apply.value : (apply.wrap as (p: unknown) => unknown)(seams[apply.seam]);
  }
  return Object.freeze(seams) as unknown as Seams;
}
