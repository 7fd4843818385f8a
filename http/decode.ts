/**
 * Content-Encoding decoding, done here rather than by undici's decompress interceptor: that one skips every status of
 * 400 and above (a 429's or a 400's Error body would be judged compressed) and drops the header it decoded. Decoded
 * output is capped like any body, so a compression bomb costs at most the read cap.
 */
import {
  brotliDecompressSync,
  constants,
  createBrotliDecompress,
  createGunzip,
  createInflate,
  createInflateRaw,
  gunzipSync,
  inflateRawSync,
  inflateSync,
} from 'node:zlib';
import type { Transform } from 'node:stream';

/** The content codings of a Content-Encoding header, in the order they were applied; identity is no coding. */
export function contentCodings(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

/** A coding's decoder, in one call and as a stream, with the flush that ends a body cut short without an error. */
interface Codec {
  readonly sync: (input: Buffer, options: { finishFlush: number; maxOutputLength?: number }) => Buffer;
  readonly stream: (options: { finishFlush: number }) => Transform;
  readonly finishFlush: number;
}

const gzip: Codec = { sync: gunzipSync, stream: createGunzip, finishFlush: constants.Z_SYNC_FLUSH };
const deflate: Codec = { sync: inflateSync, stream: createInflate, finishFlush: constants.Z_SYNC_FLUSH };
// RFC 9110's deflate is zlib-wrapped; some servers send raw deflate. Both are read (decodeBody tries this second).
const rawDeflate: Codec = { sync: inflateRawSync, stream: createInflateRaw, finishFlush: constants.Z_SYNC_FLUSH };
/** The content codings read, by their token in Content-Encoding. */
const CODECS: ReadonlyMap<string, Codec> = new Map([
  ['gzip', gzip],
  ['x-gzip', gzip],
  ['deflate', deflate],
  ['br', { sync: brotliDecompressSync, stream: createBrotliDecompress, finishFlush: constants.BROTLI_OPERATION_FLUSH }],
]);

function codecOf(coding: string, raw: boolean): Codec {
  const codec = CODECS.get(coding);
  if (codec === undefined) throw new Error(`unsupported content-coding "${coding}"`);
  return raw && codec === deflate ? rawDeflate : codec;
}

function run(input: Buffer, coding: string, cap: number, raw = false): Promise<{ bytes: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const codec = codecOf(coding, raw);
    // Sync-flush at the end: a body cut at the read cap still yields what it holds instead of an error.
    const z = codec.stream({ finishFlush: codec.finishFlush });
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    z.on('data', (b: Buffer) => {
      if (settled) return;
      if (size + b.length > cap) {
        chunks.push(b.subarray(0, cap - size));
        settled = true;
        z.destroy();
        resolve({ bytes: Buffer.concat(chunks, cap), truncated: true });
        return;
      }
      chunks.push(b);
      size += b.length;
    });
    z.on('end', () => {
      if (settled) return;
      settled = true;
      resolve({ bytes: Buffer.concat(chunks, size), truncated: false });
    });
    z.on('error', (e) => {
      if (settled) return;
      settled = true;
      reject(e);
    });
    z.end(input);
  });
}

/**
 * Decodes in one call, without a stream or the thread pool: a few kilobytes of JSON take microseconds, far less than
 * a stream's set-up and hand-offs. Output past the cap throws ERR_BUFFER_TOO_LARGE; the stream then keeps what fits.
 */
function runSync(input: Buffer, coding: string, cap: number, raw = false): Buffer {
  const codec = codecOf(coding, raw);
  return codec.sync(input, { finishFlush: codec.finishFlush, maxOutputLength: cap });
}

async function decodeOne(input: Buffer, coding: string, cap: number, raw = false) {
  try {
    return { bytes: runSync(input, coding, cap, raw), truncated: false };
  } catch (e) {
    if ((e as { code?: string }).code !== 'ERR_BUFFER_TOO_LARGE') throw e;
    return run(input, coding, cap, raw);
  }
}

/**
 * Undoes the codings (last applied, first undone). Throws with a message naming the coding when the bytes are not
 * what the header says, or the coding is unknown.
 */
export async function decodeBody(
  input: Buffer,
  codings: readonly string[],
  cap: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  let bytes = input;
  let truncated = false;
  for (const coding of [...codings].reverse()) {
    let out: { bytes: Buffer; truncated: boolean };
    try {
      out = await decodeOne(bytes, coding, cap);
    } catch (e) {
      if (coding !== 'deflate') throw new Error(`${coding}: ${(e as Error).message}`);
      try {
        out = await decodeOne(bytes, coding, cap, true);
      } catch {
        throw new Error(`deflate: ${(e as Error).message}`);
      }
    }
    bytes = out.bytes;
    truncated ||= out.truncated;
  }
  return { bytes, truncated };
}
