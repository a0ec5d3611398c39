// The PATCH media types, k8s.io/apimachinery pkg/types/patch.go (PatchType): one list for the
// apiserver's patch handler and OpenAPI and the client's patch().

export const JSON_PATCH_TYPE = 'application/json-patch+json';
export const MERGE_PATCH_TYPE = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH_TYPE = 'application/strategic-merge-patch+json';
/** Server-side apply (ApplyYAMLPatchType). */
export const APPLY_PATCH_TYPE = 'application/apply-patch+yaml';
/** Server-side apply with a CBOR configuration (ApplyCBORPatchType), served as CBOR is. */
export const APPLY_PATCH_CBOR_TYPE = 'application/apply-patch+cbor';
/** The server-side apply media types, in kube's order. */
export const APPLY_PATCH_TYPES: readonly string[] = [APPLY_PATCH_TYPE, APPLY_PATCH_CBOR_TYPE];

/** Every patch type, by the short name a client's patch() takes. */
export const PATCH_CONTENT_TYPES = {
  merge: MERGE_PATCH_TYPE,
  json: JSON_PATCH_TYPE,
  strategic: STRATEGIC_MERGE_PATCH_TYPE,
  apply: APPLY_PATCH_TYPE,
} as const;
