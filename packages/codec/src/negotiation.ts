import { ApiError } from '@listwatch/api';
import {
  CBOR_MEDIA_TYPE,
  CBOR_SEQUENCE_MEDIA_TYPE,
  JSON_MEDIA_TYPE,
  mediaTypeOf,
  PROTOBUF_MEDIA_TYPE,
  PROTOBUF_WATCH_MEDIA_TYPE,
  watchMediaTypeOf,
  type Encoding,
} from './encoding.js';
import { watchFormatOf, type Framing, type StreamFormat } from './framing/format.js';
import type { MetaVersion } from './partial-object-metadata.js';

// Content negotiation as kube-apiserver does it: apiserver pkg/endpoints/handlers/negotiation/
// negotiate.go (NegotiateMediaTypeOptions, acceptMediaTypeOptions, rejectedMediaTypes) over
// goautoneg's Accept parsing, with the resource endpoints' AllowsMediaTypeTransform rules. The
// one Accept parser of the repository: the apiserver's discovery negotiates with it too.

/** One clause of an Accept header (or a Content-Type): `type/subtype;param=value;q=0.5`. */
export interface MediaRange {
  /** Lower-cased; `*` for a wildcard. */
  readonly type: string;
  readonly subtype: string;
  /** Parameters other than q: names lower-cased, values unquoted. */
  readonly params: Readonly<Record<string, string>>;
  /** Quality as sent (RFC 9110 allows 0 to 1); 1 when absent, 0 when unreadable. */
  readonly q: number;
}

/** Splits on `sep` outside double-quoted strings. */
function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === sep) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    return value.slice(1, -1).replace(/\\(.)/g, '$1');
  }
  return value;
}

/** Parses one media type or media range; undefined when it is not `type/subtype` (or `*`). */
export function parseMediaType(text: string): MediaRange | undefined {
  const [range = '', ...rawParams] = splitOutsideQuotes(text, ';');
  const trimmed = range.trim().toLowerCase();
  let type: string;
  let subtype: string;
  if (trimmed === '*') {
    type = '*';
    subtype = '*';
  } else {
    const slash = trimmed.indexOf('/');
    if (slash <= 0 || slash === trimmed.length - 1) return undefined;
    type = trimmed.slice(0, slash).trim();
    subtype = trimmed.slice(slash + 1).trim();
    if (!type || !subtype || subtype.includes('/') || (type === '*' && subtype !== '*'))
      return undefined;
  }
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  let q = 1;
  for (const raw of rawParams) {
    const eq = raw.indexOf('=');
    if (eq < 0) continue;
    const name = raw.slice(0, eq).trim().toLowerCase();
    const value = unquote(raw.slice(eq + 1).trim());
    if (!name) continue;
    if (name === 'q') {
      // Like Go's strconv.ParseFloat in goautoneg: an unreadable q is 0, any other kept as read.
      const parsed = Number(value);
      q = Number.isFinite(parsed) && value !== '' ? parsed : 0;
    } else {
      params[name] = value;
    }
  }
  return { type, subtype, params, q };
}

/** How specifically a range matches a media type: 2 exact, 1 `type/*`, 0 `* /*`, -1 no match. */
export function mediaRangeSpecificity(range: MediaRange, type: string, subtype: string): number {
  if (range.type === type && range.subtype === subtype) return 2;
  if (range.type === type && range.subtype === '*') return 1;
  if (range.type === '*' && range.subtype === '*') return 0;
  return -1;
}

/**
 * Parses an Accept header into media ranges in preference order, as goautoneg's ParseAccept: by
 * q, then more specific first, otherwise in header order. Clauses that are not a media range
 * (`*\/json` included: nothing can match it) are dropped, so this never throws; refused ones
 * (q=0) are kept for the caller to honour. An empty header has no ranges: what it gets is the
 * caller's default (NegotiateMediaTypeOptions: the first offer).
 */
export function parseAccept(header: string | null | undefined): MediaRange[] {
  if (!header) return [];
  const ranges: MediaRange[] = [];
  for (const part of splitOutsideQuotes(header, ',')) {
    const range = parseMediaType(part);
    if (range) ranges.push(range);
  }
  const rank = (r: MediaRange): number => (r.type === '*' ? 0 : r.subtype === '*' ? 1 : 2);
  return ranges
    .map((range, index) => ({ range, index }))
    .sort((a, b) => b.range.q - a.range.q || rank(b.range) - rank(a.range) || a.index - b.index)
    .map(({ range }) => range);
}

/**
 * A media type with the group/version/kind it was converted to, as kube-apiserver labels
 * aggregated discovery (`application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList`).
 */
export function mediaTypeWithGVK(
  mediaType: string,
  gvk: { group?: string; version?: string; kind?: string },
): string {
  let result = mediaType;
  if (gvk.group) result += `;g=${gvk.group}`;
  if (gvk.version) result += `;v=${gvk.version}`;
  if (gvk.kind) result += `;as=${gvk.kind}`;
  return result;
}

/** The transformations a resource endpoint serves (`as=` with `g=meta.k8s.io`). */
export type TransformTarget = 'Table' | 'PartialObjectMetadata' | 'PartialObjectMetadataList';

/** The outcome of negotiating a response. */
export interface NegotiatedCodec {
  encoding: Encoding;
  /** The response is a meta.k8s.io Table (`as=Table`). */
  table: boolean;
  /** The Content-Type to send. */
  contentType: string;
  /** A transformation to apply before encoding, if any. */
  as?: TransformTarget;
  /** The meta.k8s.io version of the transformation. */
  version?: MetaVersion;
  /** `pretty=1` was asked for. */
  pretty: boolean;
  /** The Accept clause that was satisfied (absent for an empty Accept header). */
  mediaRange?: MediaRange;
}

export interface NegotiatedWatchCodec extends NegotiatedCodec {
  framing: Framing;
  format: StreamFormat;
}

export interface NegotiationOptions {
  /** Whether the endpoint can serve Tables (a TableConvertor exists). Default true. */
  table?: boolean;
  /**
   * Whether the endpoint's kind has a protobuf encoding (a kind of the schema source; custom
   * resources have none, as in kube-apiserver). Default false.
   */
  protobuf?: boolean;
}

interface Offer {
  type: string;
  subtype: string;
  encoding: Encoding;
}

// Served in this order of preference; the first is the default for an empty Accept header.
const OFFERS: readonly Offer[] = [
  { type: 'application', subtype: 'json', encoding: 'json' },
  { type: 'application', subtype: 'cbor', encoding: 'cbor' },
  { type: 'application', subtype: 'vnd.kubernetes.protobuf', encoding: 'protobuf' },
];

function offered(offer: Offer, options: NegotiationOptions): boolean {
  return offer.encoding !== 'protobuf' || options.protobuf === true;
}

function matchesOffer(range: MediaRange, offer: Offer, watch: boolean): number {
  const specificity = mediaRangeSpecificity(range, offer.type, offer.subtype);
  // A watch client may name the stream type itself; kube-apiserver only matches application/cbor.
  if (specificity < 0 && watch && offer.encoding === 'cbor' && range.type === 'application') {
    return range.subtype === 'cbor-seq' ? 2 : -1;
  }
  return specificity;
}

/** kube-apiserver's rejectedMediaTypes: the most specific clause matching an offer has q=0. */
function rejectedOffers(ranges: readonly MediaRange[], watch: boolean): boolean[] {
  return OFFERS.map((offer) => {
    let best = -1;
    let rejected = false;
    for (const range of ranges) {
      const specificity = matchesOffer(range, offer, watch);
      if (specificity > best) {
        best = specificity;
        rejected = range.q <= 0;
      }
    }
    return rejected;
  });
}

/** acceptMediaTypeOptions: undefined when the clause asks for something this endpoint lacks. */
function acceptOptions(
  range: MediaRange,
  offer: Offer,
  watch: boolean,
  options: NegotiationOptions,
): NegotiatedCodec | undefined {
  const { as: kind, g: group, v: version, stream, sv, pretty } = range.params;
  if (stream && stream !== 'watch') return undefined;
  if (sv && sv !== 'v1') return undefined;
  let as: TransformTarget | undefined;
  let metaVersion: MetaVersion | undefined;
  if (kind !== undefined || group !== undefined || version !== undefined) {
    if (group !== 'meta.k8s.io' || (version !== 'v1' && version !== 'v1beta1')) return undefined;
    // Transformed objects (Table, PartialObjectMetadata) have no protobuf form in the source.
    if (offer.encoding === 'protobuf') return undefined;
    if (kind === 'Table') {
      // Tables are served as JSON only (RequestScope.AllowsMediaTypeTransform).
      if (offer.encoding !== 'json' || options.table === false) return undefined;
    } else if (kind !== 'PartialObjectMetadata' && kind !== 'PartialObjectMetadataList') {
      return undefined;
    }
    as = kind;
    metaVersion = version;
  }
  return {
    encoding: offer.encoding,
    table: as === 'Table',
    contentType: watch ? watchMediaTypeOf(offer.encoding) : mediaTypeOf(offer.encoding),
    ...(as && metaVersion ? { as, version: metaVersion } : {}),
    pretty: pretty === '1',
    mediaRange: range,
  };
}

function negotiate(
  accept: string | null | undefined,
  watch: boolean,
  options: NegotiationOptions,
): NegotiatedCodec | undefined {
  if (!accept || accept.trim() === '') {
    return { encoding: 'json', table: false, contentType: JSON_MEDIA_TYPE, pretty: false };
  }
  const ranges = parseAccept(accept);
  const rejected = rejectedOffers(ranges, watch);
  for (const range of ranges) {
    if (range.q <= 0) continue;
    for (let i = 0; i < OFFERS.length; i++) {
      const offer = OFFERS[i]!;
      if (rejected[i] || !offered(offer, options) || matchesOffer(range, offer, watch) < 0)
        continue;
      const result = acceptOptions(range, offer, watch, options);
      if (result) return result;
    }
  }
  return undefined;
}

/**
 * Picks the encoding (and Table/PartialObjectMetadata transformation) of an object or list
 * response. Protobuf is served for the kinds of the schema source (`options.protobuf`); YAML is
 * not served: its clauses fall through to the next one. Nothing acceptable is a 406.
 */
export function negotiateObject(
  accept: string | null | undefined,
  options: NegotiationOptions = {},
): NegotiatedCodec {
  const result = negotiate(accept, false, options);
  if (!result) {
    throw ApiError.notAcceptable(
      `only the following media types are accepted: ${JSON_MEDIA_TYPE}, ${CBOR_MEDIA_TYPE}${options.protobuf ? `, ${PROTOBUF_MEDIA_TYPE}` : ''}`,
    );
  }
  return result;
}

/**
 * Picks the encoding and framing of a watch response: JSON watches are `application/json`,
 * newline-framed; CBOR watches are `application/cbor-seq`; protobuf watches are
 * `application/vnd.kubernetes.protobuf;stream=watch`, length-prefixed (apiserver
 * handlers/watch.go).
 */
export function negotiateWatch(
  accept: string | null | undefined,
  options: NegotiationOptions = {},
): NegotiatedWatchCodec {
  const result = negotiate(accept, true, options);
  if (!result) {
    throw ApiError.notAcceptable(
      `only the following media types are accepted: ${JSON_MEDIA_TYPE};stream=watch, ${CBOR_SEQUENCE_MEDIA_TYPE}${options.protobuf ? `, ${PROTOBUF_WATCH_MEDIA_TYPE}` : ''}`,
    );
  }
  const format = watchFormatOf(result.encoding);
  return { ...result, framing: format.framing, format };
}
