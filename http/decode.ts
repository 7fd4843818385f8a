/**
 * Content-Encoding decoding, done here rather than by undici's decompress interceptor: that one skips every status of
 * 400 and above (a 429's or a 400's Error body would be judged compressed) and drops the header it decoded. Decoded
 * output is capped like any body, so a compression bomb costs at most the read cap.
 */
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from 'node:zlib';
import type { Transform } from 'node:stream';

/** The content codings of a Content-Encoding header, in the order they were applied; identity is no coding. */
export function contentCodings(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return text
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

export const DECODABLE_CODINGS = ['gzip', 'x-gzip', 'deflate', 'br'] as const;

function decoder(coding: string, raw: boolean): Transform {
  // Sync-flush at the end: a body cut at the read cap still yields what it holds instead of an error.
  const zlib = { finishFlush: constants.Z_SYNC_FLUSH };
  switch (coding) {
    case 'gzip':
    case 'x-gzip':
      return createGunzip(zlib);
    case 'deflate':
      // RFC 9110's deflate is zlib-wrapped; some servers send raw deflate. Both are read.
      return raw ? createInflateRaw(zlib) : createInflate(zlib);
    case 'br':
      return createBrotliDecompress({ finishFlush: constants.BROTLI_OPERATION_FLUSH });
    default:
      throw new Error(`unsupported content-coding "${coding}"`);
  }
}

function run(input: Buffer, coding: string, cap: number, raw = false): Promise<{ bytes: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const z = decoder(coding, raw);
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
      out = await run(bytes, coding, cap);
    } catch (e) {
      if (coding !== 'deflate') throw new Error(`${coding}: ${(e as Error).message}`);
      try {
        out = await run(bytes, coding, cap, true);
      } catch {
        throw new Error(`deflate: ${(e as Error).message}`);
      }
    }
    bytes = out.bytes;
    truncated ||= out.truncated;
  }
  return { bytes, truncated };
}
