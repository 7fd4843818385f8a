/** listPets (4.1): a valid query gets 200 with at most `limit` (default 20) animals of the filtered status. */
import { parameter } from '../spec/contract.js';
import type { Exchange } from '../http/exchange.js';
import { exactId, isObject, jsonOf, opLabel, isAnswered, statusOf } from './facts.js';
import { defineCheck, finding, observation, show, type Check } from './check.js';
import { readHeader, headerValues } from '../http/header-read.js';
import { contract } from '../spec/contract.js';

export interface ListEvidence {
  readonly exchange: Exchange;
  /** What was asked: limit and status as sent when they are a number / string, and the raw query string. */
  readonly query: { readonly limit?: number; readonly status?: string; readonly raw: string };
  /** Whether the query is one the spec defines (limit 1..100 integer or absent; status in the enum or absent). */
  readonly valid: boolean;
}

const defaultLimit = (): number => {
  const d = (parameter('listPets', 'limit').schema as { default?: unknown }).default;
  return typeof d === 'number' ? d : 20;
};

/** The 200 array body, or null when the answer is no 200 or the body is no array (other checks report those). */
function items(ex: Exchange): unknown[] | null {
  const json = jsonOf(ex);
  return statusOf(ex) === 200 && Array.isArray(json) ? json : null;
}

const rawQuery = (q: ListEvidence['query']): string => (q.raw ? q.raw.replace(/^\?/, '') : '(no query)');

export const list200: Check<ListEvidence, 'list-200'> = defineCheck({
  id: 'list-200',
  clauses: ['4.1-list-200'],
  levels: ['violation'],
  causes: ['status'],
  area: 'listPets',
  title: 'A valid list query gets 200.',
  appliesTo: {
    what: 'answers to valid list queries',
    test: ({ exchange: ex, valid }) => valid && isAnswered(ex),
  },
  run: ({ exchange: ex, query, valid }) => {
    const status = statusOf(ex);
    if (!valid || status === null || status === 200 || status === 429) return [];
    return [
      finding(
        list200,
        ex,
        { on: `for ${opLabel(ex)} with ${rawQuery(query)}`, because: 'the spec documents 200 for a valid query' },
        {
          expected: '200',
          actual: String(status),
          causes: [{ kind: 'status', status, expected: [200] }],
        },
      ),
    ];
  },
});

export const listLimitRespected: Check<ListEvidence, 'list-limit-respected'> = defineCheck({
  id: 'list-limit-respected',
  clauses: ['4.1-limit-range'],
  covers: ['8-page-size'],
  levels: ['violation'],
  causes: ['query'],
  area: 'listPets',
  title: 'A list answers at most `limit` animals.',
  appliesTo: {
    what: 'lists answered to a valid query with a limit',
    test: ({ exchange: ex, query, valid }) => valid && typeof query.limit === 'number' && items(ex) !== null,
  },
  run: ({ exchange: ex, query, valid }) => {
    const list = items(ex);
    const limit = query.limit;
    if (!valid || list === null || typeof limit !== 'number' || list.length <= limit) return [];
    return [
      finding(
        listLimitRespected,
        ex,
        { on: `for ${opLabel(ex)}`, because: 'the spec documents limit as the maximum number returned' },
        {
          expected: `<= ${limit}`,
          actual: String(list.length),
          causes: [{ kind: 'query', parameter: 'limit', value: String(limit), observed: `${list.length} animals` }],
        },
      ),
    ];
  },
});

export const listDefaultLimit: Check<ListEvidence, 'list-default-limit'> = defineCheck({
  id: 'list-default-limit',
  clauses: ['4.1-limit-default'],
  levels: ['violation'],
  causes: ['query'],
  area: 'listPets',
  title: 'Without limit, a list answers at most the default (20) animals.',
  appliesTo: {
    what: 'lists answered to a valid query without a limit',
    test: ({ exchange: ex, query, valid }) => valid && query.limit === undefined && items(ex) !== null,
  },
  run: ({ exchange: ex, query, valid }) => {
    const list = items(ex);
    const max = defaultLimit();
    if (!valid || list === null || query.limit !== undefined || list.length <= max) return [];
    return [
      finding(
        listDefaultLimit,
        ex,
        { on: `for ${opLabel(ex)}`, because: `the spec documents a default limit of ${max}` },
        {
          expected: `<= ${max}`,
          actual: String(list.length),
          causes: [
            { kind: 'query', parameter: 'limit (default)', value: String(max), observed: `${list.length} animals` },
          ],
        },
      ),
    ];
  },
});

export const listStatusFilter: Check<ListEvidence, 'list-status-filter'> = defineCheck({
  id: 'list-status-filter',
  clauses: ['4.1-status-filter'],
  levels: ['violation'],
  causes: ['query'],
  area: 'listPets',
  title: 'With a status filter, every animal listed has that status.',
  appliesTo: {
    what: 'lists answered to a valid query with a status filter',
    test: ({ exchange: ex, query, valid }) => valid && typeof query.status === 'string' && items(ex) !== null,
  },
  run: ({ exchange: ex, query, valid }) => {
    const list = items(ex);
    const want = query.status;
    if (!valid || list === null || typeof want !== 'string') return [];
    const wrong = list.filter((p) => !isObject(p) || p.status !== want);
    if (wrong.length === 0) return [];
    // The first few animals at fault, in the cause's words: what the target listed.
    const shown = wrong.slice(0, 3).map((p) => {
      if (!isObject(p)) return show(p, 40);
      const id = exactId(p.id);
      return `id ${id ?? show(p.id, 30)} status ${p.status === undefined ? 'absent' : show(p.status, 30)}`;
    });
    return [
      finding(
        listStatusFilter,
        ex,
        {
          on: `for ${opLabel(ex)}`,
          because: 'the spec documents status as restricting the result to animals with this status',
        },
        {
          expected: `every status ${want}`,
          actual: shown.join('; '),
          causes: [
            {
              kind: 'query',
              parameter: 'status',
              value: want,
              observed: `${wrong.length} of ${list.length} animals not ${want} (${shown.join('; ')})`,
            },
          ],
        },
      ),
    ];
  },
});

/** A query component decoded, or as it is when it does not decode (a stray %). */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * What is wrong with an invalid list query, said as it is (an empty or repeated limit is not an out-of-range one), and
 * the gap of the spec it falls under: the status filter's, or else the limit's.
 */
export function invalidQueryGap(raw: string): {
  clause: 'gap-4-unknown-status-filter' | 'gap-4-out-of-range-limit';
  gap: string;
} {
  const values = (name: string): string[] =>
    raw
      .replace(/^\?/, '')
      .split('&')
      .filter(Boolean)
      .map((pair) => pair.split('='))
      .filter(([n]) => decoded(n!) === name)
      .map(([, v]) => decoded((v ?? '').replace(/\+/g, ' ')));
  const statuses = values('status');
  const statusGap =
    statuses.length > 1
      ? 'a repeated status filter'
      : statuses[0] === ''
        ? 'an empty status filter'
        : statuses.length === 1 && !contract.petStatuses.includes(statuses[0]!)
          ? 'an unknown status filter'
          : null;
  if (statusGap) return { clause: 'gap-4-unknown-status-filter', gap: statusGap };
  const limits = values('limit');
  const { minimum, maximum } = parameter('listPets', 'limit').schema as { minimum?: number; maximum?: number };
  const limit = limits[0] ?? '';
  const gap =
    limits.length > 1
      ? 'a repeated limit'
      : limit === ''
        ? 'an empty limit'
        : /^-?\d+$/.test(limit)
          ? `an out-of-range limit (${minimum ?? 1}..${maximum ?? 100})`
          : /^[+-]?\d*\.\d+$/.test(limit)
            ? 'a limit that is not a whole number'
            : 'a limit that is not a number';
  return { clause: 'gap-4-out-of-range-limit', gap };
}

export const listInvalidQuery: Check<ListEvidence, 'list-invalid-query'> = defineCheck({
  id: 'list-invalid-query',
  clauses: ['gap-4-out-of-range-limit', 'gap-4-unknown-status-filter'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'listPets',
  title: 'Records how an out-of-range limit or unknown status filter is answered (any 400 or 200 is fine).',
  // Each answer bears on the gap its query falls under.
  appliesTo: {
    what: 'answers to list queries outside the documented ones: a limit out of range, an unknown status filter',
    test: ({ exchange: ex, query, valid }) => {
      const status = statusOf(ex);
      return !valid && status !== null && status !== 429 ? [invalidQueryGap(query.raw).clause] : false;
    },
  },
  run: ({ exchange: ex, query, valid }) => {
    const status = statusOf(ex);
    if (valid || status === null || status === 429) return [];
    const { clause, gap } = invalidQueryGap(query.raw);
    const list = items(ex);
    const what = list !== null ? `${status} with ${list.length} animals` : String(status);
    return [
      observation(
        listInvalidQuery,
        ex,
        `${rawQuery(query)} answered ${what}\nthe spec does not show the answer to ${gap}`,
        {
          actual: what,
          clause,
          causes: [{ kind: 'gap', clause, answer: what }],
        },
      ),
    ];
  },
});

const PAGINATION_HINT = /page|cursor|total|offset|next|continuation/i;

export const listPagination: Check<ListEvidence, 'list-pagination'> = defineCheck({
  id: 'list-pagination',
  clauses: ['gap-4-pagination'],
  levels: ['observation'],
  causes: ['gap'],
  area: 'listPets',
  title: 'Records pagination hints of a list answer (Link, X-Total-Count, page/cursor headers).',
  appliesTo: { what: '200 answers to a list', test: ({ exchange: ex }) => statusOf(ex) === 200 },
  run: ({ exchange: ex }) => {
    if (statusOf(ex) !== 200) return [];
    const names = Object.keys((ex.response?.headers as object | undefined) ?? {})
      .filter((n) => n === 'link' || PAGINATION_HINT.test(n))
      .sort();
    const hints = names.map((n) => {
      const h = readHeader(ex, n);
      return `${n}: ${h.kind === 'value' ? show(h.value, 80) : show(headerValues(ex, n).join(' | '), 80)}`;
    });
    const message = names.length
      ? `list answered with pagination headers ${names.join(', ')}\nthe spec shows no pagination beyond limit`
      : `list answered with no pagination headers (Link, X-Total-Count, page or cursor)\nthe spec shows no pagination beyond limit`;
    const answer = hints.join('; ') || 'none';
    return [
      observation(listPagination, ex, message, {
        actual: answer,
        causes: [{ kind: 'gap', clause: listPagination.clause, answer }],
      }),
    ];
  },
});

export const listChecks = [
  list200,
  listLimitRespected,
  listDefaultLimit,
  listStatusFilter,
  listInvalidQuery,
  listPagination,
];
