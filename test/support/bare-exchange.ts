/** A GET /pets exchange with exactly the given status and response headers (no defaults), for header-reading tests. */
import type { Exchange } from '../../http/exchange.js';

export function bareExchange(
  status: number,
  headers: Record<string, string | string[]>,
  startedAt: number,
  durationMs = 1,
): Exchange {
  return {
    seq: 1,
    operation: 'listPets',
    keyPlan: 'free',
    request: { method: 'GET', url: 'http://x/v1/pets', path: '/pets', headers: {}, body: null },
    response: {
      status,
      headers,
      body: new Uint8Array(),
      bodyText: '',
      truncated: false,
      json: undefined,
      jsonError: null,
    },
    error: null,
    startedAt,
    durationMs,
  };
}
