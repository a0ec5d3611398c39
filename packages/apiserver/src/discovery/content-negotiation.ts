import type { AggregatedDiscoveryVersion } from './aggregated.js';

/** One media range of an Accept header: `application/json;g=apidiscovery.k8s.io;v=v2`. */
export interface MediaRange {
  type: string;
  subtype: string;
  /** Parameters other than `q`; names lower-cased, values unquoted. */
  params: Record<string, string>;
  q: number;
}

/** Splits on `sep` outside double-quoted strings (a quoted parameter may hold `,` or `;`). */
function splitUnquoted(text: string, sep: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? '';
    if (quoted && c === '\\' && i + 1 < text.length) {
      current += c + (text[++i] ?? '');
      continue;
    }
    if (c === '"') quoted = !quoted;
    if (c === sep && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

function specificity(range: MediaRange): number {
  return (range.type === '*' ? 0 : 2) + (range.subtype === '*' ? 0 : 1);
}

/**
 * Parses an Accept header as goautoneg does for kube-apiserver: ranges ordered by `q` (highest
 * first), then by specificity, otherwise in the order given. Ranges with `q=0` (refused) or that
 * are not `type/subtype` are dropped; an empty header means `*\/*`. Never throws.
 */
export function parseAccept(header: string | undefined): MediaRange[] {
  const text = header?.trim() ? header : '*/*';
  const ranges: MediaRange[] = [];
  for (const part of splitUnquoted(text, ',')) {
    const [rangeText = '', ...paramTexts] = splitUnquoted(part, ';');
    const range = rangeText.trim().toLowerCase();
    const [type, subtype, ...extra] = range === '*' ? ['*', '*'] : range.split('/');
    if (!type || !subtype || extra.length > 0) continue;
    const params: Record<string, string> = {};
    let q = 1;
    for (const paramText of paramTexts) {
      const eq = paramText.indexOf('=');
      if (eq < 0) continue;
      const name = paramText.slice(0, eq).trim().toLowerCase();
      const value = unquote(paramText.slice(eq + 1).trim());
      if (!name) continue;
      if (name === 'q') {
        // Like Go's ParseFloat in goautoneg: anything unparsable counts as 0 (refused).
        const parsed = value === '' ? NaN : Number(value);
        q = Number.isFinite(parsed) ? parsed : 0;
      } else {
        params[name] = value;
      }
    }
    if (q <= 0) continue;
    ranges.push({ type, subtype, params, q });
  }
  return ranges
    .map((range, index) => ({ range, index }))
    .sort(
      (a, b) =>
        b.range.q - a.range.q || specificity(b.range) - specificity(a.range) || a.index - b.index,
    )
    .map(({ range }) => range);
}

function matchesJson(range: MediaRange): boolean {
  return (
    (range.type === 'application' || range.type === '*') &&
    (range.subtype === 'json' || range.subtype === '*')
  );
}

/** Whether a range asks for the object to be converted (`as`/`g`/`v`, e.g. to a Table). */
function convertTarget(
  range: MediaRange,
): { group: string; version: string; kind: string } | undefined {
  const { as, g, v } = range.params;
  if (as === undefined && g === undefined && v === undefined) return undefined;
  return { group: g ?? '', version: v ?? '', kind: as ?? '' };
}

/** The form a discovery document is served in. */
export type DiscoveryForm =
  { form: 'legacy' } | { form: 'aggregated'; version: AggregatedDiscoveryVersion };

/**
 * Picks the form of `/api` or `/apis` (aggregated allowed) or of any other discovery document
 * (legacy only) for an Accept header, as kube's NegotiateMediaTypeOptions does with
 * DiscoveryEndpointRestrictions (aggregated/negotiation.go): a range that asks for a conversion
 * the endpoint cannot do is skipped. `undefined` means 406 Not Acceptable.
 */
export function negotiateDiscovery(
  accept: string | undefined,
  options: { aggregated: boolean },
): DiscoveryForm | undefined {
  for (const range of parseAccept(accept)) {
    if (!matchesJson(range)) continue;
    const target = convertTarget(range);
    if (!target) return { form: 'legacy' };
    if (
      options.aggregated &&
      target.group === 'apidiscovery.k8s.io' &&
      target.kind === 'APIGroupDiscoveryList' &&
      (target.version === 'v2' || target.version === 'v2beta1')
    ) {
      return { form: 'aggregated', version: target.version };
    }
  }
  return undefined;
}

/** Whether plain JSON is acceptable (OpenAPI documents: kube-openapi ignores parameters). */
export function acceptsJson(accept: string | undefined): boolean {
  return parseAccept(accept).some(matchesJson);
}
