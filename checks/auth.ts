/** Authentication (section 5): a missing or invalid key gets 401; a valid key, in any scheme casing, is accepted. */
import type { Exchange } from '../http/exchange.js';
import { defineCheck, finding, type Check } from './check.js';
import { documentedStatuses, isAnswered, opLabel, statusOf } from './facts.js';

export interface AuthEvidence {
  readonly exchange: Exchange;
  /** The Authorization variant sent, e.g. { name: 'missing header', valid: false } or { name: 'lowercase bearer', valid: true }. */
  readonly variant: {
    readonly name: string;
    readonly valid: boolean;
    /** A near miss of the key (generators/auth.ts NEAR_MISSES): accepting it is an authentication bypass. */
    readonly nearMiss?: string;
    /** A second Authorization header was sent (the field is a singleton). */
    readonly repeated?: string;
    /** A request HTTP lets a recipient refuse as malformed (a repeated Authorization, a byte outside ASCII): 400 is a refusal too. */
    readonly malformed?: boolean;
  };
}

export const authRejected: Check<AuthEvidence, 'auth-rejected'> = defineCheck({
  id: 'auth-rejected',
  clauses: ['5-401-missing-invalid'],
  covers: ['1-auth-required'],
  levels: ['violation'],
  causes: ['status'],
  area: 'auth',
  title: 'A missing or invalid key gets 401.',
  // A 429 says nothing about the key either way.
  appliesTo: {
    what: 'answers to a missing or invalid key (not 429s)',
    test: ({ exchange: ex, variant }) => !variant.valid && isAnswered(ex),
  },
  run: ({ exchange: ex, variant }) => {
    const status = statusOf(ex);
    // 429 is documented for every operation: it says nothing about the key.
    if (variant.valid || status === null || status === 401 || status === 429) return [];
    // Authorization is a singleton field (RFC 9110 §11.6.2) and obs-text is obsolete (§5.5): such a request may be
    // refused as a bad one before any key is looked at.
    if (status === 400 && variant.malformed === true) return [];
    // The cause says what was received; a 403 is named beside it as the refusal that is not the documented one.
    const instead = status === 403 ? 'instead of 401 ' : '';
    const bypass =
      status >= 200 && status < 300 && (variant.nearMiss !== undefined || variant.repeated !== undefined)
        ? ' (an authentication bypass: what is not the key was taken for it)'
        : '';
    return [
      finding(
        authRejected,
        ex,
        {
          on: `${instead}for ${opLabel(ex)} with ${variant.name}${bypass}`,
          because: 'the spec documents 401 for a missing or invalid key',
        },
        {
          expected: '401',
          actual: String(status),
          // A malformed request may be refused with 400 too (see above): 401 is what the spec documents.
          causes: [{ kind: 'status', status, expected: [401] }],
        },
      ),
    ];
  },
});

export const authValidAccepted: Check<AuthEvidence, 'auth-valid-accepted'> = defineCheck({
  id: 'auth-valid-accepted',
  clauses: ['5-bearer-scheme'],
  levels: ['violation'],
  causes: ['status'],
  area: 'auth',
  title: 'A valid key (scheme name in any case) is not answered 401 or 403.',
  appliesTo: {
    what: 'answers to a valid key (not 429s)',
    test: ({ exchange: ex, variant }) => variant.valid && isAnswered(ex),
  },
  run: ({ exchange: ex, variant }) => {
    const status = statusOf(ex);
    if (!variant.valid || (status !== 401 && status !== 403)) return [];
    return [
      finding(
        authValidAccepted,
        ex,
        {
          on: `for ${opLabel(ex)} with ${variant.name}`,
          because: 'the spec documents Authorization: Bearer <API_KEY> (scheme case-insensitive) as accepted',
        },
        {
          expected: 'not 401/403',
          actual: String(status),
          // Any documented status but a refusal of the key would do.
          causes: [{ kind: 'status', status, expected: documentedStatuses(ex.operation).filter((s) => s !== 401) }],
        },
      ),
    ];
  },
});

export const authChecks = [authRejected, authValidAccepted];
