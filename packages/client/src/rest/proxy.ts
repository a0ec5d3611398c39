import { isIP } from 'node:net';
import { ApiError } from '@listwatch/api';

/**
 * The proxy a client of `server` goes through, as client-go picks it: the kubeconfig cluster's
 * `proxy-url` if set, else the environment as Go's http.ProxyFromEnvironment reads it
 * (golang.org/x/net/http/httpproxy): `HTTPS_PROXY` for https servers, `HTTP_PROXY` for http
 * ones (upper case first, then lower), skipped for hosts `NO_PROXY` names and never used for
 * localhost or loopback addresses. Undefined: connect directly.
 */
export function proxyFor(
  server: URL,
  proxyUrl: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (proxyUrl) return proxyUrl;
  const fromEnv =
    server.protocol === 'https:'
      ? (env['HTTPS_PROXY'] ?? env['https_proxy'])
      : (env['HTTP_PROXY'] ?? env['http_proxy']);
  if (!fromEnv) return undefined;
  const host = hostOf(server);
  if (host === 'localhost' || isLoopback(host)) return undefined;
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  if (noProxyMatches(env['NO_PROXY'] ?? env['no_proxy'] ?? '', host, port)) return undefined;
  // A bare host:port means http:// (Go parses it so).
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(fromEnv) ? fromEnv : `http://${fromEnv}`;
}

const PROXY_SCHEMES = new Set(['http:', 'https:', 'socks5:']);

/** Refuses what client-go refuses: a proxy URL that does not parse or has another scheme. */
export function checkProxyUrl(proxy: string): void {
  let url: URL | undefined;
  try {
    url = new URL(proxy);
  } catch {
    // reported below
  }
  if (!url || !PROXY_SCHEMES.has(url.protocol)) {
    throw new ApiError({
      code: 400,
      reason: 'BadRequest',
      message: `invalid proxy URL ${JSON.stringify(redactProxyUrl(proxy))}: want http, https or socks5`,
    });
  }
}

/** A proxy URL fit for logs: no user or password. */
export function redactProxyUrl(proxy: string): string {
  try {
    const url = new URL(proxy);
    if (url.username || url.password) url.username = url.password = '';
    return url.href;
  } catch {
    return '<unparsable proxy URL>';
  }
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

function isLoopback(host: string): boolean {
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) return host === '::1' || /^::ffff:127\./.test(host);
  return false;
}

/**
 * NO_PROXY as httpproxy reads it: comma-separated; `*` matches everything; an IP or CIDR
 * matches addresses; `example.com` matches it and its subdomains, `.example.com` only the
 * subdomains; an entry with `:port` only that port.
 */
function noProxyMatches(noProxy: string, host: string, port: string): boolean {
  for (const raw of noProxy.split(',')) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (inCidr(host, entry)) return true;
      continue;
    }
    let entryPort = '';
    const portMatch = /^(.*[^:\]]|\[.*\]):(\d+)$/.exec(entry);
    if (portMatch && isIP(entry) !== 6) {
      entry = portMatch[1]!;
      entryPort = portMatch[2]!;
    }
    entry = entry.replace(/^\[(.*)\]$/, '$1');
    if (entryPort && entryPort !== port) continue;
    if (isIP(entry)) {
      if (entry === host) return true;
      continue;
    }
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.')) {
      if (host.endsWith(entry)) return true;
    } else if (host === entry || host.endsWith(`.${entry}`)) {
      return true;
    }
  }
  return false;
}

function inCidr(host: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/');
  const bits = Number(bitsText);
  const family = isIP(base ?? '');
  if (family === 0 || family !== isIP(host) || !Number.isInteger(bits)) return false;
  const a = addressBits(host, family);
  const b = addressBits(base!, family);
  if (bits < 0 || bits > a.length) return false;
  return a.slice(0, bits) === b.slice(0, bits);
}

/** The address as a string of 32 or 128 bits. */
function addressBits(address: string, family: number): string {
  if (family === 4) {
    return address
      .split('.')
      .map((n) => Number(n).toString(2).padStart(8, '0'))
      .join('');
  }
  let groups = address.split('::');
  const head = groups[0] ? groups[0].split(':') : [];
  const tail = groups.length > 1 && groups[1] ? groups[1].split(':') : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as two groups.
  const last = tail.length ? tail : head;
  if (last.length && last[last.length - 1]!.includes('.')) {
    const v4 = last.pop()!.split('.').map(Number);
    last.push(((v4[0]! << 8) | v4[1]!).toString(16), ((v4[2]! << 8) | v4[3]!).toString(16));
  }
  groups = [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  return groups.map((g) => parseInt(g, 16).toString(2).padStart(16, '0')).join('');
}
