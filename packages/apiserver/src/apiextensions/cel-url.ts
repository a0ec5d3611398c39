import {
  CelScalar,
  celFunc,
  celMethod,
  listType,
  mapType,
  objectType,
  type CelFunc,
} from '@bufbuild/cel';
import { create, type DescMessage, type Message } from '@bufbuild/protobuf';
import { celTypesRegistry } from './cel-types.js';

// Kubernetes' CEL URL library (k8s.io/apiserver pkg/cel/library/urls.go): `url()` accepts what
// Go's url.ParseRequestURI accepts (an absolute URL or an absolute path) and reads it as
// url.Parse does; kubernetes.URL is a message of those parts (@bufbuild/cel has no opaque
// types). The parse follows net/url's parse, getScheme and parseAuthority.

const URLDesc = celTypesRegistry.getMessage('kubernetes.URL') as DescMessage;
const URL_TYPE = objectType(URLDesc);
const { BOOL, STRING } = CelScalar;

interface Parts {
  scheme: string;
  opaque: string;
  user: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}
type URLMessage = Message & Parts;

class URLError extends Error {}

const fail = (raw: string, why: string) => new URLError(`parse ${JSON.stringify(raw)}: ${why}`);

/** net/url getScheme. */
function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw fail(raw, 'missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function unescape(raw: string, s: string): string {
  if (/%(?![0-9a-fA-F]{2})/.test(s)) {
    const bad = /%.{0,2}/.exec(s.slice(s.search(/%(?![0-9a-fA-F]{2})/)))?.[0] ?? '%';
    throw fail(raw, `invalid URL escape ${JSON.stringify(bad)}`);
  }
  return decodeURIComponent(s.replace(/%(?![0-9a-fA-F]{2})/g, '%25'));
}

const PATH_SAFE = /^[A-Za-z0-9\-_.~$&+,/:;=@!'()*[\]%]*$/;

/** net/url escape(path, encodePath). */
function escapePath(path: string): string {
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~$&+,/:;=@]/.test(c)
      ? c
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** net/url parse(raw, viaRequest), then Parse's fragment for a non-request parse. */
function parseURL(input: string, viaRequest: boolean): Parts {
  let raw = input;
  let fragment = '';
  if (!viaRequest) {
    const hash = raw.indexOf('#');
    if (hash >= 0) {
      fragment = unescape(input, raw.slice(hash + 1));
      raw = raw.slice(0, hash);
    }
  }
  if ([...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) {
    throw fail(input, 'net/url: invalid control character in URL');
  }
  if (raw === '' && viaRequest) throw fail(input, 'empty url');
  const parts: Parts = {
    scheme: '',
    opaque: '',
    user: '',
    host: '',
    path: '',
    rawPath: '',
    rawQuery: '',
    fragment,
  };
  if (raw === '*') return { ...parts, path: '*' };
  const [scheme, afterScheme] = splitScheme(raw);
  let rest = afterScheme;
  parts.scheme = scheme.toLowerCase();
  if (rest.endsWith('?') && rest.split('?').length === 2) rest = rest.slice(0, -1);
  else {
    const q = rest.indexOf('?');
    if (q >= 0) {
      parts.rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }
  if (!rest.startsWith('/')) {
    if (parts.scheme !== '') return { ...parts, opaque: rest };
    if (viaRequest) throw fail(input, 'invalid URI for request');
    const colon = rest.indexOf(':');
    const slash = rest.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) {
      throw fail(input, 'first path segment in URL cannot contain colon');
    }
  }
  if ((parts.scheme !== '' || (!viaRequest && !rest.startsWith('///'))) && rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    const authority = end >= 0 ? rest.slice(2, end) : rest.slice(2);
    rest = end >= 0 ? rest.slice(end) : '';
    const at = authority.lastIndexOf('@');
    if (at >= 0) parts.user = authority.slice(0, at);
    parts.host = parseHost(input, at >= 0 ? authority.slice(at + 1) : authority);
  }
  parts.path = unescape(input, rest);
  parts.rawPath = rest;
  return parts;
}

/** net/url parseHost: a bracketed IPv6 literal or a name, and a numeric port if any. */
function parseHost(raw: string, host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw fail(raw, "missing ']' in host");
    const port = host.slice(close + 1);
    if (port !== '' && !/^:\d*$/.test(port)) {
      throw fail(raw, `invalid port ${JSON.stringify(port)} after host`);
    }
    return host;
  }
  const colon = host.lastIndexOf(':');
  if (colon >= 0 && !/^:\d*$/.test(host.slice(colon))) {
    throw fail(raw, `invalid port ${JSON.stringify(host.slice(colon))} after host`);
  }
  return unescape(raw, host);
}

function hostname(host: string): string {
  if (host.startsWith('['))
    return host.slice(1, host.indexOf(']') >= 0 ? host.indexOf(']') : undefined);
  const colon = host.lastIndexOf(':');
  return colon >= 0 ? host.slice(0, colon) : host;
}

function port(host: string): string {
  const colon = host.lastIndexOf(':');
  if (colon < 0 || (host.startsWith('[') && colon < host.indexOf(']'))) return '';
  const p = host.slice(colon + 1);
  return /^\d+$/.test(p) ? p : '';
}

/** url.ParseQuery: pairs by `&`, `+` as a space; a pair that does not decode is skipped. */
function query(rawQuery: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of rawQuery.split('&')) {
    if (pair === '' || pair.includes(';')) continue;
    const eq = pair.indexOf('=');
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    try {
      const key = decode(eq >= 0 ? pair.slice(0, eq) : pair);
      const value = decode(eq >= 0 ? pair.slice(eq + 1) : '');
      out.set(key, [...(out.get(key) ?? []), value]);
    } catch {
      continue;
    }
  }
  return out;
}

function parts(u: unknown): Parts {
  return (u as { message?: URLMessage }).message ?? (u as URLMessage);
}

function parseRequestURI(text: string): void {
  parseURL(text, true);
}

export const urlLibrary: CelFunc[] = [
  celFunc('url', [STRING], URL_TYPE, (text) => {
    try {
      parseRequestURI(text);
      return create(URLDesc, { ...parseURL(text, false) });
    } catch (err) {
      if (!(err instanceof URLError) && !(err instanceof URIError)) throw err;
      throw new Error(`URL parse error during conversion from string: ${err.message}`);
    }
  }),
  celFunc('isURL', [STRING], BOOL, (text) => {
    try {
      parseRequestURI(text);
      return true;
    } catch {
      return false;
    }
  }),
  celMethod('getScheme', URL_TYPE, [], STRING, function () {
    return parts(this).scheme;
  }),
  celMethod('getHost', URL_TYPE, [], STRING, function () {
    return parts(this).host;
  }),
  celMethod('getHostname', URL_TYPE, [], STRING, function () {
    return hostname(parts(this).host);
  }),
  celMethod('getPort', URL_TYPE, [], STRING, function () {
    return port(parts(this).host);
  }),
  celMethod('getEscapedPath', URL_TYPE, [], STRING, function () {
    const { path, rawPath } = parts(this);
    // url.EscapedPath: the path as written when that is a valid encoding of it.
    if (rawPath && PATH_SAFE.test(rawPath)) return rawPath;
    return escapePath(path);
  }),
  celMethod('getQuery', URL_TYPE, [], mapType(STRING, listType(STRING)), function () {
    return query(parts(this).rawQuery);
  }),
];
