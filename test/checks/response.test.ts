/** Response checks (applied to every exchange) and the header parsing they rest on. */
import { describe, expect, it } from 'vitest';
import type { Check } from '../../checks/check.js';
import { causesText } from '../../checks/cause.js';
import * as h from '../../checks/headers.js';
import { readHeader } from '../../http/header-read.js';
import { parseRetryAfter } from '../../http/retry-after.js';
import * as r from '../../checks/response.js';
import { allChecks, applyResponseChecks } from '../../checks/registry.js';
import fc from 'fast-check';
import { ERROR, evidence, exchange, FREE, NOW, NOW_S, PET, type ExchangeInit } from './fixtures.js';

const run = (check: Check<r.ResponseEvidence>, init: ExchangeInit = {}, extra: Partial<r.ResponseEvidence> = {}) =>
  check.run(evidence(init, extra));

describe('a conformant exchange', () => {
  it('yields no violation or warning from any response check, for each operation', () => {
    for (const operation of ['listPets', 'createPet', 'getPet'] as const) {
      const found = applyResponseChecks(evidence({ operation })).filter((f) => f.level !== 'observation');
      expect(found, operation).toEqual([]);
    }
  });
  it('documented error answers pass too (401, 404, 400, 429)', () => {
    for (const [operation, status] of [
      ['listPets', 401],
      ['getPet', 404],
      ['createPet', 400],
      ['listPets', 429],
    ] as const) {
      const found = applyResponseChecks(evidence({ operation, status })).filter((f) => f.level !== 'observation');
      expect(found, `${operation} ${status}`).toEqual([]);
    }
  });
});

describe('status-documented', () => {
  it('passes 201 for createPet and 429 anywhere', () => {
    expect(run(r.statusDocumented, { operation: 'createPet' })).toEqual([]);
    expect(run(r.statusDocumented, { operation: 'getPet', status: 429 })).toEqual([]);
  });
  it('fails 200 for POST /pets with the two-line message', () => {
    const [f] = run(r.statusDocumented, { operation: 'createPet', status: 200, body: PET });
    expect(f?.level).toBe('violation');
    expect(f?.message).toBe('received 200 for POST /pets\nthe spec documents 201, 400, 401, 429');
  });
  it('fails 404 for a valid list query and 422 for an ordinary NewPet', () => {
    expect(run(r.statusDocumented, { operation: 'listPets', status: 404 })).toHaveLength(1);
    expect(run(r.statusDocumented, { operation: 'createPet', status: 422 })).toHaveLength(1);
  });
  it('tolerates any 4xx to requests the spec does not define (gaps)', () => {
    expect(run(r.statusDocumented, { operation: 'listPets', path: '/pets?limit=0', status: 400 })).toEqual([]);
    expect(run(r.statusDocumented, { operation: 'listPets', path: '/pets?status=lost', status: 422 })).toEqual([]);
    expect(run(r.statusDocumented, { operation: 'getPet', path: '/pets/abc', status: 400 })).toEqual([]);
    expect(run(r.statusDocumented, { operation: 'getPet', path: '/pets/9223372036854775808', status: 400 })).toEqual(
      [],
    );
    expect(
      run(r.statusDocumented, {
        operation: 'createPet',
        requestBody: `{"name":"${'x'.repeat(5000)}","categoryId":1}`,
        status: 413,
      }),
    ).toEqual([]);
    expect(run(r.statusDocumented, { operation: 'createPet', requestBody: '{"name":"Rex"}', status: 422 })).toEqual([]);
  });
  it('leaves 5xx to no-5xx and is not applicable without an operation or response', () => {
    expect(run(r.statusDocumented, { status: 500 })).toEqual([]);
    expect(run(r.statusDocumented, { operation: null, status: 418 })).toEqual([]);
    expect(run(r.statusDocumented, { error: { code: 'ECONNRESET', message: 'reset' } })).toEqual([]);
  });
});

describe('no-5xx', () => {
  it('passes 200 and fails 503', () => {
    expect(run(r.no5xx)).toEqual([]);
    const [f] = run(r.no5xx, { status: 503, body: 'down' });
    expect(f?.message).toBe('received 503 for GET /pets\nthe spec documents no 5xx (200, 401, 429)');
  });
});

describe('transport-ok', () => {
  it('passes a response and fails a transport error with its code', () => {
    expect(run(r.transportOk)).toEqual([]);
    const [f] = run(r.transportOk, { error: { code: 'UND_ERR_HEADERS_TIMEOUT', message: 'Headers Timeout Error' } });
    expect(f?.level).toBe('violation');
    expect(f?.message).toContain('UND_ERR_HEADERS_TIMEOUT');
    expect(f?.exchanges[0]?.error).toContain('UND_ERR_HEADERS_TIMEOUT');
  });
  it('ECONNREFUSED: only transport-ok fires, no other check crashes or reports', () => {
    const found = applyResponseChecks(
      evidence({ operation: 'getPet', error: { code: 'ECONNREFUSED', message: 'connect ECONNREFUSED' } }),
    );
    expect(found.map((f) => f.checkId)).toEqual(['transport-ok']);
  });
});

describe('content-type-json', () => {
  it('accepts charset and any case', () => {
    expect(run(r.contentTypeJson, { headers: { 'content-type': 'application/json; charset=utf-8' } })).toEqual([]);
    expect(run(r.contentTypeJson, { headers: { 'content-type': 'Application/JSON' } })).toEqual([]);
    expect(run(r.contentTypeJson, { headers: { 'content-type': ['application/json', 'application/json'] } })).toEqual(
      [],
    );
  });
  it('fails text/plain, problem+json, absent and conflicting repeats', () => {
    for (const ct of ['text/plain', 'application/problem+json', undefined, ['application/json', 'text/html']]) {
      const found = run(r.contentTypeJson, { headers: { 'content-type': ct } });
      expect(found, String(ct)).toHaveLength(1);
      expect(found[0]?.message).toMatch(/\nthe spec documents application\/json$/);
    }
  });
  it('does not judge 429 (its body format is a gap)', () => {
    expect(
      run(r.contentTypeJson, { status: 429, headers: { 'content-type': 'text/plain' }, body: 'slow down' }),
    ).toEqual([]);
  });
});

describe('json-parses', () => {
  it('passes JSON and fails HTML and an empty body', () => {
    expect(run(r.jsonParses)).toEqual([]);
    expect(run(r.jsonParses, { body: '<html>oops</html>' })).toHaveLength(1);
    expect(run(r.jsonParses, { operation: 'getPet', status: 404, body: '' })[0]?.message).toContain('empty body');
  });
});

describe('body-schema', () => {
  it('passes Pet, Pets and Error bodies, extra fields allowed', () => {
    expect(
      run(r.bodySchema, { operation: 'getPet', body: '{"id":1,"name":"a","categoryId":2,"color":"red"}' }),
    ).toEqual([]);
    expect(run(r.bodySchema, { operation: 'getPet', status: 404 })).toEqual([]);
    expect(run(r.bodySchema, { body: '[]' })).toEqual([]);
  });
  it('cites the clause of the schema that failed', () => {
    expect(run(r.bodySchema, { operation: 'createPet', body: '{"id":"1","name":"a","categoryId":2}' })[0]?.clause).toBe(
      '2-pet-schema',
    );
    expect(run(r.bodySchema, { body: '{"items":[]}' })[0]?.clause).toBe('2-pets-array');
    expect(run(r.bodySchema, { status: 401, body: '{"error":"nope"}' })[0]?.clause).toBe('2-error-schema');
    expect(run(r.bodySchema, { body: '[{"id":1,"name":"a","categoryId":2,"status":"lost"}]' })).toHaveLength(1);
  });
});

describe('int64-exact', () => {
  it('passes int64 edges judged on digits', () => {
    expect(
      run(r.int64Exact, {
        operation: 'getPet',
        body: '{"id":9223372036854775807,"name":"a","categoryId":-9223372036854775808}',
      }),
    ).toEqual([]);
    expect(run(r.int64Exact, { body: '[{"id":1.0,"name":"a","categoryId":1e3}]' })).toEqual([]);
  });
  it('fails beyond int64 and fractions', () => {
    const [f] = run(r.int64Exact, {
      operation: 'getPet',
      body: '{"id":9223372036854775808,"name":"a","categoryId":1}',
    });
    expect(f?.message).toContain('id 9223372036854775808');
    expect(run(r.int64Exact, { body: '[{"id":1.5,"name":"a","categoryId":1}]' })).toHaveLength(1);
  });
  it('does not double-report a quoted id (the schema does)', () => {
    expect(
      run(r.int64Exact, { operation: 'getPet', body: '{"id":"9223372036854775808","name":"a","categoryId":1}' }),
    ).toEqual([]);
  });
});

describe('error-status-matches', () => {
  it('passes equal status, fails a different one, ignores non-numeric', () => {
    expect(run(r.errorStatusMatches, { status: 401 })).toEqual([]);
    expect(run(r.errorStatusMatches, { status: 401, body: ERROR(403) })[0]?.message).toBe(
      "received an Error on 401 for GET /pets: /status must equal the HTTP status 401: received 403\nthe spec documents an Error's status equal to the HTTP status",
    );
    // Rule 1 binds every Error body: a complete Error on a 429 with another status is a violation. Whether a 429
    // carries an Error at all is the gap (section 7, rule 3): JSON that is no complete Error is a warning only.
    expect(run(r.errorStatusMatches, { status: 429, body: ERROR(500) }).map((f) => f.level)).toEqual(['violation']);
    expect(run(r.errorStatusMatches, { status: 429, body: '{"status":500}' }).map((f) => f.level)).toEqual(['warning']);
    expect(run(r.errorStatusMatches, { status: 429, body: '{"code":"E","status":500}' }).map((f) => f.level)).toEqual([
      'warning',
    ]);
    expect(run(r.errorStatusMatches, { status: 429, body: ERROR(429) })).toEqual([]);
    expect(run(r.errorStatusMatches, { status: 404, body: ERROR(500) }).map((f) => f.level)).toEqual(['violation']);
    expect(run(r.errorStatusMatches, { status: 401, body: '{"status":"401"}' })).toEqual([]);
    expect(run(r.errorStatusMatches)).toEqual([]);
  });
});

describe('rate-limit-headers-present', () => {
  it('passes integers, identical repeats, and on 401/429', () => {
    expect(run(r.rateLimitHeadersPresent, { status: 401 })).toEqual([]);
    expect(run(r.rateLimitHeadersPresent, { status: 429 })).toEqual([]);
    expect(run(r.rateLimitHeadersPresent, { headers: { 'x-ratelimit-limit': ['60', '60'] } })).toEqual([]);
  });
  it('fails missing, fractional, negative and conflicting repeated headers', () => {
    expect(
      run(r.rateLimitHeadersPresent, { status: 429, headers: { 'x-ratelimit-reset': undefined } })[0]?.message,
    ).toMatch(/^X-RateLimit-Reset missing on 429 for GET \/pets\n/);
    expect(run(r.rateLimitHeadersPresent, { headers: { 'x-ratelimit-limit': '60.0' } })).toHaveLength(1);
    expect(run(r.rateLimitHeadersPresent, { headers: { 'x-ratelimit-remaining': '-1' } })).toHaveLength(1);
    expect(run(r.rateLimitHeadersPresent, { headers: { 'x-ratelimit-limit': ['60', '1000'] } })[0]?.message).toContain(
      'repeated with different values',
    );
  });
});

describe('rate-limit-remaining-range', () => {
  it('passes 0 and Limit, fails above Limit (exact)', () => {
    expect(run(r.rateLimitRemainingRange, { headers: { 'x-ratelimit-remaining': '0' } })).toEqual([]);
    expect(run(r.rateLimitRemainingRange, { headers: { 'x-ratelimit-remaining': '60' } })).toEqual([]);
    expect(run(r.rateLimitRemainingRange, { headers: { 'x-ratelimit-remaining': '61' } })).toHaveLength(1);
    expect(
      run(r.rateLimitRemainingRange, {
        headers: { 'x-ratelimit-limit': '9007199254740992', 'x-ratelimit-remaining': '9007199254740993' },
      }),
    ).toHaveLength(1);
  });
});

describe('rate-limit-reset-epoch', () => {
  /** `at`: when the exchange was answered (its request started 10 ms before). */
  const reset = (value: string, headers: ExchangeInit['headers'] = {}, at = NOW) =>
    run(r.rateLimitResetEpoch, { headers: { 'x-ratelimit-reset': value, ...headers }, startedAt: at - 10 });
  it('passes epoch seconds within a day, with 5 s skew', () => {
    expect(reset(String(NOW_S + 60))).toEqual([]);
    expect(reset(String(NOW_S - 5))).toEqual([]);
    expect(reset(String(NOW_S + 86_400 + 5))).toEqual([]);
  });
  it('fails beyond the skew and beyond a day', () => {
    expect(reset(String(NOW_S - 6))[0]?.message).toContain('s in the past');
    expect(reset(String(NOW_S + 86_400 + 6))).toHaveLength(1);
  });
  it('fails milliseconds and relative seconds', () => {
    expect(reset(String(NOW + 60_000))[0]?.message).toContain('milliseconds');
    expect(reset('60')[0]?.message).toContain('seconds remaining');
  });
  it('judges against the Date header, not the local clock', () => {
    const hourLater = NOW + 3_600_000;
    // The target's clock is an hour ahead: its Reset is right by its own Date.
    const headers = { date: new Date(hourLater).toUTCString() };
    expect(reset(String(hourLater / 1000 + 30), headers, NOW)).toEqual([]);
    expect(reset(String(NOW_S + 30), headers, NOW)[0]?.message).toContain('the Date header');
  });
  it('without a Date, judges by the local clock when the exchange was answered', () => {
    expect(reset(String(NOW_S + 30), { date: undefined })).toEqual([]);
    expect(reset(String(NOW_S + 30), { date: 'yesterday-ish' })).toEqual([]);
    expect(reset(String(NOW_S - 100), { date: 'garbage' })[0]?.message).toContain(
      'the local clock when it was answered',
    );
  });
  it('judges each exchange at its answer, never by a later clock (a run ends, a report is written, a HAR replayed)', () => {
    // Issue 28: a fixed window's first Reset (3 s after the answer) judged at the end of a 10-minute run.
    const asked = NOW - 600_000;
    const at = (headers: ExchangeInit['headers']) =>
      r.rateLimitResetEpoch.run({ exchange: exchange({ headers, startedAt: asked, durationMs: 10 }), plan: FREE });
    expect(at({ 'x-ratelimit-reset': String(asked / 1000 + 3), date: undefined })).toEqual([]);
    // A Reset already in the past when it was answered is still caught, Date or not.
    const stale = String(asked / 1000 - 6);
    expect(at({ 'x-ratelimit-reset': stale, date: undefined })[0]?.message).toContain('6 s in the past');
    expect(at({ 'x-ratelimit-reset': stale, date: new Date(asked).toUTCString() })).toHaveLength(1);
  });
  it('a slow answer: the Reset may be made any time between the request and the end of its body', () => {
    // Requested at NOW, body read 20 s later (a stalled host, a slow body): a Reset of NOW + 1 s was then in the future.
    const slow = (value: string) =>
      run(r.rateLimitResetEpoch, {
        headers: { 'x-ratelimit-reset': value, date: undefined },
        startedAt: NOW,
        durationMs: 20_000,
      });
    expect(slow(String(NOW_S + 1))).toEqual([]);
    expect(slow(String(NOW_S + 20 + 86_400 + 5))).toEqual([]);
    expect(slow(String(NOW_S - 6))[0]?.message).toContain('6 s in the past');
    expect(slow(String(NOW_S + 20 + 86_400 + 6))[0]?.message).toContain('beyond the longest window');
  });
});

describe('rate-limit-limit-plan', () => {
  it('passes per-minute or per-day limits, fails others, skips unknown plan and keyless requests', () => {
    expect(run(r.rateLimitLimitPlan, { headers: { 'x-ratelimit-limit': '60' } })).toEqual([]);
    expect(run(r.rateLimitLimitPlan, { headers: { 'x-ratelimit-limit': '1000' } })).toEqual([]);
    expect(run(r.rateLimitLimitPlan, { headers: { 'x-ratelimit-limit': '300' } })[0]?.message).toBe(
      'X-RateLimit-Limit wrong 300 for a free key on GET /pets\nthe spec documents 60 per minute or 1000 per day for that plan',
    );
    expect(run(r.rateLimitLimitPlan, { headers: { 'x-ratelimit-limit': '300' } }, { plan: null })).toEqual([]);
    expect(
      run(r.rateLimitLimitPlan, { status: 401, keyPlan: 'invalid', headers: { 'x-ratelimit-limit': '5' } }),
    ).toEqual([]);
  });
  it('no echo: a 401 to a valid key (the target did not recognise it) is not judged against its plan', () => {
    expect(
      run(r.rateLimitLimitPlan, { status: 401, keyPlan: 'business', headers: { 'x-ratelimit-limit': '60' } }),
    ).toEqual([]);
  });
});

describe('retry-after-valid', () => {
  it('passes delta-seconds and HTTP-dates (IMF-fixdate and obsolete forms)', () => {
    for (const v of [
      '30',
      '0',
      'Sun, 01 Jun 2025 12:00:30 GMT',
      'Sunday, 01-Jun-25 12:00:30 GMT',
      'Sun Jun  1 12:00:30 2025',
    ]) {
      expect(run(r.retryAfterValid, { status: 429, headers: { 'retry-after': v } }), v).toEqual([]);
    }
  });
  it('fails 0.25, -1, soon, absent; ignores non-429', () => {
    for (const v of ['0.25', '-1', 'soon', undefined, ['30', '60']]) {
      expect(run(r.retryAfterValid, { status: 429, headers: { 'retry-after': v } }), String(v)).toHaveLength(1);
    }
    expect(run(r.retryAfterValid, { headers: { 'retry-after': 'soon' } })).toEqual([]);
  });
});

describe('error-body-429-json and error-body-429', () => {
  it('a 429 body that is not JSON is a violation; JSON that is not an Error a warning; an Error passes both', () => {
    const both = (init: Parameters<typeof run>[1]) => [...run(r.errorBody429Json, init), ...run(r.errorBody429, init)];
    expect(both({ status: 429 })).toEqual([]);
    const text = both({ status: 429, headers: { 'content-type': 'text/plain' }, body: 'Too Many Requests' });
    expect(text.map((f) => `${f.checkId}:${f.level}`)).toEqual(['error-body-429-json:violation']);
    const html = both({ status: 429, headers: { 'content-type': 'text/html' }, body: '<h1>429</h1>' });
    expect(html.map((f) => `${f.checkId}:${f.level}`)).toEqual(['error-body-429-json:violation']);
    const notError = both({ status: 429, body: '{"error":"slow"}' });
    expect(notError.map((f) => `${f.checkId}:${f.level}`)).toEqual(['error-body-429:warning']);
    expect(both({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'x' })).toEqual([]);
  });
});

describe('www-authenticate', () => {
  it('passes Bearer in any case, among several challenges', () => {
    expect(run(r.wwwAuthenticate, { status: 401, headers: { 'www-authenticate': 'bearer realm="x"' } })).toEqual([]);
    expect(
      run(r.wwwAuthenticate, { status: 401, headers: { 'www-authenticate': 'Basic realm="a, b", Bearer' } }),
    ).toEqual([]);
    expect(
      run(r.wwwAuthenticate, {
        status: 401,
        headers: { 'www-authenticate': ['Basic realm="a"', 'Bearer error="invalid_token"'] },
      }),
    ).toEqual([]);
  });
  it('warns when absent or not Bearer', () => {
    expect(run(r.wwwAuthenticate, { status: 401, headers: { 'www-authenticate': undefined } })[0]?.level).toBe(
      'warning',
    );
    expect(
      run(r.wwwAuthenticate, { status: 401, headers: { 'www-authenticate': 'Basic realm="bearer x"' } }),
    ).toHaveLength(1);
    expect(run(r.wwwAuthenticate, { status: 401, headers: { 'www-authenticate': 'Bearerish' } })).toHaveLength(1);
  });
});

describe('deprecation-headers', () => {
  it('records headers on getPet as observations, with format notes; nothing on other operations', () => {
    const [f] = run(r.deprecationHeaders, {
      operation: 'getPet',
      headers: { deprecation: '@1688169599', sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' },
    });
    expect(f?.level).toBe('observation');
    expect(f?.message).toContain('Deprecation "@1688169599"');
    expect(f?.message).not.toContain('not an');
    expect(run(r.deprecationHeaders, { operation: 'getPet', headers: { deprecation: 'true' } })[0]?.message).toContain(
      'not an RFC 9745',
    );
    expect(run(r.deprecationHeaders, { operation: 'getPet', status: 404 })[0]?.message).toContain('no Deprecation');
    expect(run(r.deprecationHeaders, { operation: 'listPets', headers: { deprecation: '@1' } })).toEqual([]);
  });
});

describe('extra-fields', () => {
  it('records extra properties as an observation only', () => {
    expect(run(r.extraFields)).toEqual([]);
    const [f] = run(r.extraFields, { body: '[{"id":1,"name":"a","categoryId":2,"owner":"x","age":3}]' });
    expect(f?.level).toBe('observation');
    expect(f?.message).toContain('"age", "owner"');
    expect(
      run(r.extraFields, { status: 401, body: '{"code":"c","message":"m","status":401,"trace":"t"}' })[0]?.message,
    ).toContain('Error bodies');
  });
});

describe('messages rendered from the causes (issue 30)', () => {
  /** A failing answer for every response check that reports violations or warnings. */
  const failing: Record<string, ExchangeInit> = {
    'status-documented': { operation: 'createPet', status: 200 },
    'no-5xx': { status: 502, body: 'bad gateway' },
    'transport-ok': { operation: 'getPet', error: { code: 'ECONNRESET', message: 'other side\nclosed' } },
    'content-type-json': { headers: { 'content-type': 'text/html' } },
    'json-parses': { body: '<html>oops</html>' },
    'body-schema': { operation: 'getPet', body: '{"id":1,"categoryId":"2"}' },
    'int64-exact': { body: '[{"id":9223372036854775808,"name":"a","categoryId":-9223372036854775809}]' },
    'error-status-matches': { status: 404, operation: 'getPet', body: ERROR(400) },
    'rate-limit-headers-present': { headers: { 'x-ratelimit-limit': undefined, 'x-ratelimit-reset': 'soon' } },
    'rate-limit-remaining-range': { headers: { 'x-ratelimit-limit': '6', 'x-ratelimit-remaining': '59' } },
    'rate-limit-reset-epoch': { headers: { 'x-ratelimit-reset': '60' } },
    'rate-limit-limit-plan': { headers: { 'x-ratelimit-limit': '300' } },
    'retry-after-valid': { status: 429, headers: { 'retry-after': '0.25' } },
    'error-body-429-json': { status: 429, headers: { 'content-type': 'text/plain' }, body: 'slow down' },
    'error-body-429': { status: 429, body: '{"status":429}' },
    'www-authenticate': { status: 401, headers: { 'www-authenticate': 'Basic realm="x"' } },
  };
  it('every violation or warning says its causes on its first line, where it was answered, and what is documented after', () => {
    const judging = r.responseCheckList.filter((c) => c.levels.some((l) => l !== 'observation')).map((c) => c.id);
    expect(Object.keys(failing).sort()).toEqual([...judging].sort());
    for (const check of r.responseCheckList) {
      const init = failing[check.id];
      if (!init) continue;
      const found = run(check, init);
      expect(found, check.id).toHaveLength(1);
      const [first, ...rest] = found[0]!.message.split('\n');
      expect(found[0]!.causes.length, check.id).toBeGreaterThan(0);
      expect(first, check.id).toContain(causesText(found[0]!.causes));
      expect(first, check.id).toContain(
        init.operation === 'getPet' ? 'GET /pets/{petId}' : init.operation === 'createPet' ? 'POST /pets' : 'GET /pets',
      );
      expect(rest, check.id).toHaveLength(1);
    }
  });
  it("says the words the causes lack: the client's error, a repeated header, why a Reset is wrong", () => {
    expect(run(r.transportOk, failing['transport-ok'])[0]?.message).toBe(
      'the connection dropped (ECONNRESET) for GET /pets/{petId}: other side closed\nthe spec documents 200, 401, 404, 429',
    );
    expect(run(r.contentTypeJson, { headers: { 'content-type': ['application/json', 'text/html'] } })[0]?.message).toBe(
      'received Content-Type application/json | text/html, not application/json on 200 for GET /pets (Content-Type repeated with different values)\nthe spec documents application/json',
    );
    expect(run(r.rateLimitHeadersPresent, failing['rate-limit-headers-present'])[0]?.message).toBe(
      'X-RateLimit-Limit missing; X-RateLimit-Reset invalid soon on 200 for GET /pets\nthe spec documents X-RateLimit-Limit, -Remaining and -Reset (integers) on every response',
    );
    expect(run(r.rateLimitRemainingRange, failing['rate-limit-remaining-range'])[0]?.message).toBe(
      'X-RateLimit-Remaining invalid 59 (X-RateLimit-Limit 6) on 200 for GET /pets\nthe spec documents Remaining as what is left of Limit: 0 to 6',
    );
    expect(run(r.rateLimitResetEpoch, failing['rate-limit-reset-epoch'])[0]?.message).toBe(
      `X-RateLimit-Reset invalid 60 on 200 for GET /pets\nthe spec documents a Unix timestamp in seconds: this one looks like seconds remaining, not a timestamp (reference ${NOW_S}, the Date header)`,
    );
    expect(run(r.retryAfterValid, failing['retry-after-valid'])[0]?.message).toBe(
      'Retry-After invalid 0.25 on 429 for GET /pets\nthe spec documents Retry-After on a 429 (delta-seconds or an HTTP-date)',
    );
  });
});

describe('robustness', () => {
  it('garbage never throws, never yields a harness-error finding', () => {
    const weird: ExchangeInit[] = [
      { body: '9'.repeat(5000) },
      { body: '[1, "x", null, {"id": {"nested": true}}]' },
      { operation: 'getPet', body: '{"__proto__":{"x":1},"id":1e400,"name":"a","categoryId":1}' },
      { body: `[${'['.repeat(500)}${']'.repeat(500)}]` },
      { headers: { 'x-ratelimit-reset': '9'.repeat(300), 'content-type': ';;;', date: '\u0000' } },
      { status: 429, headers: { 'retry-after': ['', ''] }, body: 'null' },
      { operation: null, status: 200, body: '"x"' },
      { operation: 'createPet', requestBody: '\u0000\u00ff', status: 415 },
    ];
    for (const init of weird) {
      const found = applyResponseChecks(evidence(init));
      expect(found.filter((f) => f.message.includes('harness error'))).toEqual([]);
    }
    // Body reaching the checks as a value the client could never produce still yields no throw.
    const ex = exchange();
    const broken = { ...ex, response: { ...ex.response!, headers: null as never, json: { status: Symbol('x') } } };
    expect(() => applyResponseChecks({ exchange: { ...broken, startedAt: NaN }, plan: null })).not.toThrow();
  });
});

// --- header helpers ---
describe('header helpers', () => {
  it('mediaType drops parameters and lower-cases', () => {
    expect(h.mediaType('Application/JSON; charset=UTF-8')).toBe('application/json');
    expect(h.mediaType('application/problem+json')).toBe('application/problem+json');
    expect(h.mediaType('json')).toBeNull();
    expect(h.mediaType(undefined)).toBeNull();
  });
  it('parseIntegerHeader accepts digits only, exactly', () => {
    expect(h.parseIntegerHeader(' 60 ')).toBe(60n);
    expect(h.parseIntegerHeader('9007199254740993')).toBe(9007199254740993n);
    for (const bad of ['', '-1', '1.0', '1e3', '+5', '0x10', 'sixty'])
      expect(h.parseIntegerHeader(bad), bad).toBeNull();
  });
  it('readHeader collapses identical repeats and reports differing ones', () => {
    expect(readHeader(exchange({ headers: { 'x-a': ['1', '1'] } }), 'X-A')).toEqual({ kind: 'value', value: '1' });
    expect(readHeader(exchange({ headers: { 'x-a': ['1', '2'] } }), 'x-a')).toEqual({
      kind: 'conflict',
      values: ['1', '2'],
    });
    expect(readHeader(exchange(), 'x-none')).toEqual({ kind: 'absent' });
    expect(readHeader(exchange({ error: { code: 'ECONNRESET', message: '' } }), 'date')).toEqual({ kind: 'absent' });
  });
  it('parseHttpDate reads the three HTTP-date forms and rejects the rest', () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37);
    expect(h.parseHttpDate('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(t);
    expect(h.parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT')).toBe(t);
    expect(h.parseHttpDate('Sun Nov  6 08:49:37 1994')).toBe(t);
    for (const bad of [
      '2025-06-01T12:00:00Z',
      'Sun, 31 Feb 2025 08:49:37 GMT',
      'Sun, 06 Nov 1994 08:49:37 PST',
      '1717243200',
      '',
    ]) {
      expect(h.parseHttpDate(bad), bad).toBeNull();
    }
  });
  it('parseRetryAfter gives the wait for both forms (a date from the response Date), null otherwise', () => {
    const now = Date.UTC(2025, 5, 1, 12, 0, 0);
    expect(parseRetryAfter('120', now)).toEqual({ kind: 'seconds', ms: 120_000 });
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:30 GMT', now)).toEqual({ kind: 'date', ms: 30_000 });
    expect(parseRetryAfter('Sun, 01 Jun 2025 11:00:00 GMT', now)).toEqual({ kind: 'date', ms: 0 });
    const date = 'Sun, 01 Jun 2025 12:00:00 GMT';
    expect(parseRetryAfter('Sun, 01 Jun 2025 12:00:30 GMT', now + 9_000, date)).toEqual({ kind: 'date', ms: 30_000 });
    for (const bad of ['0.25', '-1', 'soon', '1e3', '']) expect(parseRetryAfter(bad, now), bad).toBeNull();
  });
  it('hasBearerChallenge is case-insensitive and ignores quoted text', () => {
    expect(h.hasBearerChallenge('bearer realm="x"')).toBe(true);
    expect(h.hasBearerChallenge('BEARER')).toBe(true);
    expect(h.hasBearerChallenge('Basic realm="x", Bearer error="invalid_token"')).toBe(true);
    expect(h.hasBearerChallenge('Basic realm="use bearer, please"')).toBe(false);
    expect(h.hasBearerChallenge('Bearerish realm="x"')).toBe(false);
  });
  it('parseDeprecation reads RFC 9745 structured dates', () => {
    expect(h.parseDeprecation('@1688169599')).toBe(1688169599);
    expect(h.parseDeprecation('true')).toBeNull();
  });
});

// --- never throw, whatever the target sends ---
describe('property: any response', () => {
  it('every check yields findings as data, never a throw or a harness error', () => {
    const names = [
      'content-type',
      'date',
      'retry-after',
      'www-authenticate',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
      'deprecation',
      'link',
    ];
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
      fc.bigInt().map(String),
    );
    const number = fc.oneof(
      fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }).map(String),
      fc.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    );
    const pet = fc
      .record({ id: number, categoryId: number, name: fc.string({ maxLength: 10 }).map((s) => JSON.stringify(s)) })
      .map((p) => `{"id":${p.id},"name":${p.name},"categoryId":${p.categoryId},"status":400}`);
    const body = fc.oneof(
      fc.json({ maxDepth: 3 }),
      fc.string({ maxLength: 60 }),
      pet,
      pet.map((p) => `[${p},${p}]`),
    );
    const arb = fc.record({
      operation: fc.constantFrom('listPets', 'createPet', 'getPet', null),
      status: fc.integer({ min: 100, max: 599 }),
      headers: fc.dictionary(fc.constantFrom(...names), value, { maxKeys: 6 }),
      body,
      now: fc.oneof(fc.constant(NOW), fc.constant(Number.NaN), fc.integer({ min: 0, max: 2 ** 42 })),
    });
    fc.assert(
      fc.property(arb, ({ operation, status, headers, body, now }) => {
        const e = exchange({ operation: operation as never, status, headers, body, startedAt: now });
        const found = [
          ...applyResponseChecks({ exchange: e, plan: { requestsPerMinute: 60, requestsPerDay: 1000 } }),
          ...allChecks
            .filter((c) => c.area !== 'response')
            .flatMap((c) =>
              c.run({
                exchange: e,
                create: e,
                get: e,
                list: e,
                creates: [e, e],
                lists: [e],
                expected: e,
                variant: { name: 'x', valid: status % 2 === 0 },
                query: { raw: '' },
                valid: true,
                sent: { name: 'a', categoryId: '1' },
                nameEdge: false,
                suppliedId: '1',
                reason: 'r',
                marker: 'a',
                petId: '1',
                limit: 100,
                actual: 'a',
                ok: false,
                requestClass: 'GET /pets 200',
                baselineMs: 10,
                windows: [0, 1, 2, 3, 4].map((i) => ({
                  startAt: i * 6_000,
                  endAt: i * 6_000 + 5_000,
                  medianMs: 10 * 4 ** i,
                  answers: 5,
                })),
                first: e,
                last: e,
                answers: 25,
                rest: { restMs: 2_000, requestClass: 'GET /pets 200', baselineMs: 10, latenciesMs: [900] },
                host: { lagMs: 5, embedded: false },
              }),
            ),
        ];
        return found.every((f) => !f.message.includes('harness error') && f.message.split('\n').length <= 2);
      }),
      { numRuns: 300, seed: 42 },
    );
  });
});
