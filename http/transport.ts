/**
 * How the client reaches a target: which certificates it trusts (Node's roots plus --ca, or, only when asked, none),
 * which proxy it goes through (HTTPS_PROXY / HTTP_PROXY / NO_PROXY, resolved by config/ and handed over here: undici
 * would otherwise read process.env itself), and the one undici dispatcher that composes both with the timeouts.
 */
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';
import { Agent, EnvHttpProxyAgent, type Dispatcher } from 'undici';

/** A proxy URL and the variable it came from, so that a failure can name what to fix. */
export interface ProxyVariable {
  readonly variable: string;
  readonly url: string;
}

export interface ProxySettings {
  readonly http: ProxyVariable | null;
  /** When null, https targets go through the http proxy (undici's rule). */
  readonly https: ProxyVariable | null;
  readonly noProxy: { readonly variable: string; readonly value: string } | null;
}

export interface TransportSettings {
  /**
   * PEM certificates trusted in addition to Node's bundled roots (from --ca). Node drops NODE_EXTRA_CA_CERTS as soon as
   * a `ca` option is given, so config/ adds that file's certificates here too.
   */
  readonly ca: readonly string[];
  /** Where `ca` came from (file paths), for messages and reports. */
  readonly caFiles: readonly string[];
  /** --insecure: certificates are not verified at all. Every report says so. */
  readonly insecure: boolean;
  readonly proxy: ProxySettings;
  /** The Accept-Encoding value sent with every request, or null to send none (the target then answers identity). */
  readonly acceptEncoding: string | null;
}

/** What the run's progress and every report say of --insecure (here, beside the setting, for both to import). */
export const INSECURE_LINE =
  'TLS certificates were NOT verified (--insecure): the target was not authenticated, and a man in the middle would have gone unnoticed';

/** gzip is what reverse proxies apply to JSON; deflate's two framings and br add ways to fail, not realism. */
export const DEFAULT_ACCEPT_ENCODING = 'gzip';

export const NO_PROXY_SETTINGS: ProxySettings = Object.freeze({ http: null, https: null, noProxy: null });

export const DEFAULT_TRANSPORT: TransportSettings = Object.freeze({
  ca: [],
  caFiles: [],
  insecure: false,
  proxy: NO_PROXY_SETTINGS,
  acceptEncoding: DEFAULT_ACCEPT_ENCODING,
});

export interface DispatcherLimits {
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly connections: number;
}

/** The TLS options for every TLS handshake the client makes: to the target, directly or through a tunnel, and to an https proxy. */
function tlsOptions(t: TransportSettings): { secureContext?: SecureContext; rejectUnauthorized: boolean } {
  return {
    // `ca` replaces Node's trust store: keep the public roots so that --ca adds a company CA rather than swapping.
    // One context for the client's life: building one from ~150 roots costs tens of ms, per connection otherwise.
    ...(t.ca.length > 0 ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...t.ca] }) } : {}),
    rejectUnauthorized: !t.insecure,
  };
}

export function createDispatcher(t: TransportSettings, limits: DispatcherLimits): Dispatcher {
  const tls = tlsOptions(t);
  const connect = { ...tls, timeout: limits.connectTimeoutMs };
  const agent = {
    connect,
    // Through a proxy the target's handshake runs inside the CONNECT tunnel, with these options, not `connect`'s.
    requestTls: connect,
    proxyTls: connect,
    connections: limits.connections,
    headersTimeout: limits.headersTimeoutMs,
    bodyTimeout: limits.bodyTimeoutMs,
    // Reuse an idle socket only briefly: servers with short idle timeouts that give no Keep-Alive hint would
    // otherwise race with a reused socket and show up as resets that are the client's doing.
    keepAliveTimeout: 1_000,
    keepAliveMaxTimeout: 2_000,
  };
  // With no proxy at all, the agent EnvHttpProxyAgent would pick for every request, without its per-request URL
  // parse and NO_PROXY match.
  if (t.proxy.http === null && t.proxy.https === null) return new Agent(agent);
  return new EnvHttpProxyAgent({
    // Empty strings, never undefined: undici falls back to process.env for an undefined option.
    httpProxy: t.proxy.http?.url ?? '',
    httpsProxy: t.proxy.https?.url ?? '',
    noProxy: t.proxy.noProxy?.value ?? '',
    ...agent,
  });
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * The proxy a request to `target` goes through, or null when it goes direct. The same rules as undici's
 * EnvHttpProxyAgent (https falls back to the http proxy; NO_PROXY entries match a host, its subdomains, an optional
 * port; `*` bypasses all), so that diagnostics and the load command's refusal agree with what the client does.
 */
export function proxyFor(target: string, proxy: ProxySettings): ProxyVariable | null {
  const url = new URL(target);
  const chosen = url.protocol === 'https:' ? (proxy.https ?? proxy.http) : proxy.http;
  if (!chosen) return null;
  return bypassesProxy(url, proxy.noProxy?.value ?? '') ? null : chosen;
}

function bypassesProxy(url: URL, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]/).filter(Boolean);
  if (entries.length === 0) return false;
  if (noProxy === '*') return true;
  // url.host keeps IPv6 brackets; strip only the port.
  const hostname = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of entries) {
    const m = /^(.+):(\d+)$/.exec(entry);
    const host = (m ? m[1]! : entry).replace(/^\*?\./, '').toLowerCase();
    const entryPort = m ? Number.parseInt(m[2]!, 10) : 0;
    if (entryPort && entryPort !== port) continue;
    if (hostname === host || hostname.endsWith(`.${host}`)) return true;
  }
  return false;
}

/** A proxy URL fit for messages and reports: credentials in it are masked. */
export function displayProxy(p: ProxyVariable): string {
  try {
    const u = new URL(p.url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return `${u.href.replace(/\/$/, '')} (${p.variable})`;
  } catch {
    return `(unparsable) (${p.variable})`;
  }
}

/** Kinds of first-request failure that are about how the target is reached, not about what it answers. */
export type ReachFailure =
  | { readonly kind: 'tls-untrusted'; readonly code: string }
  | { readonly kind: 'tls-expired'; readonly code: string }
  | { readonly kind: 'tls-name'; readonly code: string }
  | { readonly kind: 'tls-handshake'; readonly code: string }
  | { readonly kind: 'proxy'; readonly code: string; readonly proxy: ProxyVariable }
  | null;

/** Certificate chain codes (OpenSSL's, as Node reports them) that mean: issued by a CA this process does not trust. */
export const UNTRUSTED_CA_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);
export const EXPIRED_CERT_CODES = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID']);
export const CERT_NAME_CODES = new Set(['ERR_TLS_CERT_ALTNAME_INVALID', 'HOSTNAME_MISMATCH']);
/** Codes of a connection that failed before any HTTP was spoken: through a proxy, the proxy is what failed. */
const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/**
 * Classifies a transport error code of a request to `target`: a TLS trust/validity/name problem, a proxy that refused
 * or could not be reached, or null (anything else: the target's own behaviour, or plainly unreachable).
 */
export function classifyReachFailure(code: string, target: string, proxy: ProxySettings): ReachFailure {
  if (UNTRUSTED_CA_CODES.has(code)) return { kind: 'tls-untrusted', code };
  if (EXPIRED_CERT_CODES.has(code)) return { kind: 'tls-expired', code };
  if (CERT_NAME_CODES.has(code)) return { kind: 'tls-name', code };
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_'))
    return { kind: 'tls-handshake', code };
  const via = proxyFor(target, proxy);
  if (via && (code === PROXY_REFUSED_CODE || code === 'UND_ERR_PRX_TLS' || CONNECT_CODES.has(code)))
    return { kind: 'proxy', code, proxy: via };
  return null;
}

/** The client's code for a proxy that answered CONNECT with something other than 200 (407, 403, 502…). */
export const PROXY_REFUSED_CODE = 'PSC_PROXY_REFUSED';
