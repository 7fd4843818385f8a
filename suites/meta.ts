/**
 * What the run hands the command's reporter: its outcome through vitest's task.meta (runner/outcome.ts), and the
 * exchanges (for --har) as they happen, in bounded batches recorded as test artifacts, which the reporter writes out
 * and empties.
 */
import { recordArtifact, type RunnerTestCase, type TestArtifactBase } from 'vitest';
import type { Exchange, RecordedResponse } from '../http/exchange.js';
import type { RunOutcome } from '../runner/outcome.js';
import type { ExchangeSink } from '../runner/request-path.js';

/** An exchange as data that survives the trip to the reporters (the parsed body is left behind: it is re-derivable). */
export type ExchangeData = Omit<Exchange, 'response'> & { readonly response: Omit<RecordedResponse, 'json'> | null };

/**
 * The bytes of a body in an array of their own. A body is often a view of a larger buffer (Node's 8 KiB pool, the
 * socket's read buffer), and a structured clone copies a view's whole buffer: a batch would carry megabytes.
 */
const own = (bytes: Uint8Array): Uint8Array =>
  bytes.byteLength === bytes.buffer.byteLength ? bytes : Uint8Array.prototype.slice.call(bytes);

export function exchangeData(ex: Exchange): ExchangeData {
  const request = ex.request.body === null ? ex.request : { ...ex.request, body: own(ex.request.body) };
  if (!ex.response) return { ...ex, request };
  const { json: _json, ...response } = ex.response;
  return { ...ex, request, response: { ...response, body: own(response.body) } };
}

export const EXCHANGES_ARTIFACT = 'petstore:exchanges';

/** One batch of a suite's exchanges on its way to the reporter, which empties `exchanges` once it has written them. */
export interface ExchangesArtifact extends TestArtifactBase {
  readonly type: typeof EXCHANGES_ARTIFACT;
  readonly suite: string;
  exchanges: ExchangeData[];
}

declare module '@vitest/runner' {
  interface TaskMeta {
    run?: RunOutcome;
  }
  interface TestArtifactRegistry {
    [EXCHANGES_ARTIFACT]: ExchangesArtifact;
  }
}

/**
 * Exchanges per batch, and batches on their way at once before the next request waits. Small batches keep the copies
 * short-lived: with 200 a batch lived long enough for V8 to move most copies to the old generation, whose heap then
 * grew to several times what it held (a 100,000-exchange run with --har peaked at about 330 MB RSS; with 50, about
 * 250 MB). More of them on their way at once keep the run from waiting on each (50 with 2 in flight was 8% slower).
 */
export const BATCH_SIZE = 50;
const BATCHES_IN_FLIGHT = 8;
/** The most exchanges a stream holds: the open batch and those on their way. */
export const MOST_HELD = BATCH_SIZE * (BATCHES_IN_FLIGHT + 1);

/**
 * The worker's end of the exchange stream: a RunContext's sink that batches exchanges and sends each full batch to
 * the reporter, forgetting it. About MOST_HELD exchanges are held at most (plus the answers of requests already under
 * way): past that, `backlog` makes the next request wait for a batch to arrive. A batch that fails to arrive is not
 * retried: the reporter compares what arrived with the suite's count of exchanges and reports the difference as a
 * harness error.
 */
export class ExchangeStream implements ExchangeSink {
  private batch: ExchangeData[] = [];
  private readonly inFlight: Promise<void>[] = [];
  private held = 0;
  /** Most exchanges held at once (the open batch and those in flight), for the tests of the bound. */
  peakHeld = 0;

  constructor(private readonly send: (batch: ExchangeData[]) => Promise<void>) {}

  /** A stream whose batches are artifacts of `test` (any test of the suite: the reporter only reads the suite name). */
  static toReporter(test: RunnerTestCase, suite: string): ExchangeStream {
    return new ExchangeStream(async (exchanges) => {
      const recorded = await recordArtifact(test, { type: EXCHANGES_ARTIFACT, suite, exchanges });
      // vitest keeps every artifact on the test; this one has been written out already.
      const i = test.artifacts.indexOf(recorded);
      if (i >= 0) test.artifacts.splice(i, 1);
    });
  }

  push(ex: Exchange): void {
    this.batch.push(exchangeData(ex));
    this.peakHeld = Math.max(this.peakHeld, ++this.held);
    if (this.batch.length >= BATCH_SIZE) this.flush();
  }

  backlog(): Promise<void> | null {
    return this.inFlight.length >= BATCHES_IN_FLIGHT ? this.inFlight[0]! : null;
  }

  /** Sends what is left and waits until every batch has arrived (or failed to). */
  async close(): Promise<void> {
    this.flush();
    await Promise.all(this.inFlight);
  }

  private flush(): void {
    const batch = this.batch;
    if (batch.length === 0) return;
    this.batch = [];
    const p: Promise<void> = this.send(batch)
      // Missing entries show in the reporter's count; the run goes on.
      .catch(() => {})
      .finally(() => {
        this.held -= batch.length;
        this.inFlight.splice(this.inFlight.indexOf(p), 1);
      });
    this.inFlight.push(p);
  }
}
