/**
 * Latency histograms in microseconds (HDR, 3 significant digits), so sub-millisecond latencies stay visible (autocannon's
 * own histogram records whole milliseconds). Stored as compressed base64 so shards can be merged exactly: percentiles of
 * a merged run come from the added histograms, never from averaged percentiles.
 */
import * as hdr from 'hdr-histogram-js';
import type { LatencySummary } from './model.js';

export type Histogram = hdr.Histogram;

export function newHistogram(): Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000_000,
    numberOfSignificantValueDigits: 3,
    autoResize: true,
  });
}

export function encodeHistogram(h: Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

export function decodeHistogram(text: string): Histogram {
  return hdr.decodeFromCompressedBase64(text);
}

/** Adds every histogram into a fresh one (the inputs are left untouched). */
export function mergeHistograms(texts: readonly string[]): Histogram {
  const out = newHistogram();
  for (const t of texts) out.add(decodeHistogram(t));
  return out;
}

const ms = (us: number): number => Math.round(us) / 1000;

/** The bucket arithmetic of a histogram (hdr.build and the decoder make JsHistograms; the interface omits it). */
function resolution(h: Histogram): Pick<hdr.JsHistogram, 'lowestEquivalentValue' | 'highestEquivalentValue'> {
  const js = h as unknown as Partial<hdr.JsHistogram>;
  if (typeof js.lowestEquivalentValue !== 'function' || typeof js.highestEquivalentValue !== 'function')
    throw new Error('histogram: expected a JsHistogram (hdr-histogram-js without WebAssembly)');
  return js as hdr.JsHistogram;
}

export function summarize(h: Histogram): LatencySummary {
  const count = h.totalCount;
  return {
    count,
    // Min and max at the histogram's own resolution (3 significant digits), as its percentiles are: an encoded
    // histogram keeps buckets, not exact extremes, so a report, its shards and their merge agree on them.
    minMs: count
      ? ms(h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : resolution(h).lowestEquivalentValue(h.minNonZeroValue))
      : 0,
    meanMs: count ? ms(h.mean) : 0,
    p50Ms: count ? ms(h.getValueAtPercentile(50)) : 0,
    p90Ms: count ? ms(h.getValueAtPercentile(90)) : 0,
    p99Ms: count ? ms(h.getValueAtPercentile(99)) : 0,
    p999Ms: count ? ms(h.getValueAtPercentile(99.9)) : 0,
    maxMs: count ? ms(resolution(h).highestEquivalentValue(h.maxValue)) : 0,
    histogram: encodeHistogram(h),
  };
}
