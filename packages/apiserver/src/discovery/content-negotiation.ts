import { mediaRangeSpecificity, parseAccept, type MediaRange } from '@listwatch/codec';
import type { AggregatedDiscoveryVersion } from './aggregated.js';

// Discovery's side of content negotiation: the Accept header is read by the codec's parseAccept
// and its ranges matched as NegotiateMediaTypeOptions matches them (exact, type/*, */*).

/** A range plain JSON satisfies; a refused one (q=0) never does. */
function matchesJson(range: MediaRange): boolean {
  return range.q > 0 && mediaRangeSpecificity(range, 'application', 'json') >= 0;
}

/** NegotiateMediaTypeOptions: an empty Accept header takes the first offer (legacy JSON). */
function isEmpty(accept: string | undefined): boolean {
  return accept === undefined || accept.trim() === '';
}

/** Whether a range asks for the object to be converted (`as`/`g`/`v`, e.g. to a Table). */
function convertTarget(
  range: MediaRange,
): { group: string; version: string; kind: string } | undefined {
  const { as, g, v } = range.params;
  if (as === undefined && g === undefined && v === undefined) return undefined;
  return { group: g ?? '', version: v ?? '', kind: as ?? '' };
}

/** A range Kubernetes protobuf satisfies (not a wildcard: JSON is the default). */
function matchesProtobuf(range: MediaRange): boolean {
  return (
    range.q > 0 && mediaRangeSpecificity(range, 'application', 'vnd.kubernetes.protobuf') === 2
  );
}

/**
 * The form a discovery document is served in; legacy documents (metav1 APIVersions,
 * APIGroupList, APIGroup, APIResourceList) also in protobuf, as kube-apiserver's discovery
 * handlers write them with its codecs (endpoints/discovery). Aggregated discovery is JSON only:
 * the apidiscovery protobuf messages are not in the schema source.
 */
export type DiscoveryForm =
  { form: 'legacy'; protobuf?: true } | { form: 'aggregated'; version: AggregatedDiscoveryVersion };

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
  if (isEmpty(accept)) return { form: 'legacy' };
  for (const range of parseAccept(accept)) {
    if (matchesProtobuf(range) && !convertTarget(range)) return { form: 'legacy', protobuf: true };
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
  return isEmpty(accept) || parseAccept(accept).some(matchesJson);
}

/** kube-openapi handler's protobuf media types for /openapi/v2 (gnostic openapi_v2.Document). */
export const OPENAPI_V2_PROTOBUF_TYPES = [
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
  'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
] as const;

/**
 * The media type `/openapi/v2` is served in, as kube-openapi's handler (pkg/handler) picks it:
 * the first clause, by preference, that JSON or one of the protobuf types satisfies. Either
 * protobuf type is answered as `…spec.v2.v1.0+protobuf`: the `@` of the deprecated one is not a
 * valid Content-Type for Go's mime parser. Undefined means 406.
 */
export function negotiateOpenApiV2(accept: string | undefined): string | undefined {
  if (isEmpty(accept)) return 'application/json';
  for (const range of parseAccept(accept)) {
    if (range.q <= 0) continue;
    if (matchesJson(range)) return 'application/json';
    const type = OPENAPI_V2_PROTOBUF_TYPES.find(
      (t) => range.type === 'application' && `application/${range.subtype}` === t,
    );
    if (type) return OPENAPI_V2_PROTOBUF_TYPES[1];
  }
  return undefined;
}
