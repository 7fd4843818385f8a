/**
 * Renders an exchange's request as a runnable curl command. The key stays a placeholder ($PETSTORE_API_KEY_<PLAN>)
 * inside double quotes so the shell expands it from the environment; every other byte is quoted exactly, and bodies
 * with non-printable bytes are given with $'…' escapes so nothing is dropped. TLS and proxies are curl's own:
 * it honours HTTPS_PROXY / NO_PROXY; a private CA needs --cacert FILE (or -k for an --insecure run).
 */
import type { RecordedRequest } from './exchange.js';

/** A dot segment of a path ('.', '..', or their %2e spellings), which curl resolves unless told not to. */
const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:\/|$)/i;

function singleQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** ANSI-C quoting keeps control and non-UTF-8 bytes intact. */
function ansiQuote(bytes: Uint8Array): string {
  let out = "$'";
  for (const b of bytes) {
    if (b === 0x27) out += "\\'";
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\x${b.toString(16).padStart(2, '0')}`;
  }
  return `${out}'`;
}

function quoteHeader(name: string, value: string): string {
  const line = `${name}: ${value}`;
  // Only placeholders are expanded by the shell; anything else with a $ is quoted literally.
  if (/\$\{?PETSTORE_API_KEY_[A-Z]+/.test(value) && !/["\\`]/.test(line)) return `"${line}"`;
  return singleQuote(line);
}

export function toCurl(req: RecordedRequest): string {
  const parts = ['curl', '-sS', '-i', '-X', req.method, singleQuote(req.url)];
  // A path sent with its dot segments (a robustness case) keeps them: curl would resolve them otherwise.
  if (DOT_SEGMENT.test(req.url.replace(/^[a-z]+:\/\/[^/]*/i, '').split('?', 1)[0]!)) parts.splice(3, 0, '--path-as-is');
  // The run asked for compression: curl then decodes the answer as the run did (and sends the same Accept-Encoding).
  if (req.headers['accept-encoding'] !== undefined) parts.splice(3, 0, '--compressed');
  for (const [name, value] of Object.entries(req.headers)) parts.push('-H', quoteHeader(name, value));
  // curl sends a repeated -H of one name as repeated lines.
  for (const [name, value] of req.laterLines ?? []) parts.push('-H', quoteHeader(name, value));
  if (req.body !== null) {
    const text = Buffer.from(req.body).toString('utf8');
    const printable = Buffer.from(text, 'utf8').equals(Buffer.from(req.body)) && !/[\x00-\x08\x0b-\x1f\x7f]/.test(text);
    parts.push('--data-binary', printable ? singleQuote(text) : ansiQuote(req.body));
  }
  return parts.join(' ');
}
