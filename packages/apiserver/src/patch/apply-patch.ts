import {
  ApiError,
  exceedsJsonDepth,
  fieldErrors,
  JSON_PATCH_TYPE,
  MERGE_PATCH_TYPE,
  STRATEGIC_MERGE_PATCH_TYPE,
} from '@listwatch/api';
import { applyJsonPatch } from './json-patch.js';
import { mergePatch } from './merge-patch.js';
import { badPatch, unsupportedPatchType } from './patch-error.js';
import { patchSchemaFor, type GroupKind } from './patch-schema.js';
import { strategicMergePatch } from './strategic-merge-patch.js';
import { isJsonObject, jsonKindName, type JsonObject, type JsonValue } from './json-value.js';

// The PATCH dispatch of kube-apiserver (k8s.io/apiserver/pkg/endpoints/handlers/patch.go,
// PatchResource and applyJSPatch/strategicPatchObject), minus HTTP and storage: the caller
// reads the body, checks preconditions (resourceVersion, uid) and stores the result.

// Server-side apply (APPLY_PATCH_TYPE) is not a patch engine here: the handler sends it to the
// field manager (handlers/apply.ts) before this is reached.

/**
 * The patch types a kind accepts, in kube's order: strategic merge patch needs struct tags, so
 * kinds without a schema (kube: custom resources) take only JSON and merge patches.
 */
export function supportedPatchTypes(schemaKind?: GroupKind | string): readonly string[] {
  const hasSchema = schemaKind !== undefined && patchSchemaFor(schemaKind) !== undefined;
  return hasSchema
    ? [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, STRATEGIC_MERGE_PATCH_TYPE]
    : [JSON_PATCH_TYPE, MERGE_PATCH_TYPE];
}

/** The media type without parameters (`; charset=utf-8`), as kube cuts it. */
export function patchMediaType(contentType: string): string {
  const semicolon = contentType.indexOf(';');
  return (semicolon > 0 ? contentType.slice(0, semicolon) : contentType).trim();
}

/**
 * Applies a PATCH body to `original` according to its Content-Type and returns the patched
 * object; `original` is not changed. Fields the patch sets, `metadata.resourceVersion`
 * included, are kept as sent. Throws kube's ApiErrors: 415 for a patch type the kind does not
 * accept, 400 for an unreadable patch, 413 for too many JSON Patch operations, 422 for a JSON
 * Patch that does not apply or a result that is not an object.
 */
export function applyPatch(
  contentType: string,
  original: JsonObject,
  patchBody: string | Uint8Array,
  schemaKind?: GroupKind | string,
): JsonObject {
  const mediaType = patchMediaType(contentType);
  const accepted = supportedPatchTypes(schemaKind);
  if (!accepted.includes(mediaType)) throw unsupportedPatchType(accepted);
  const text = typeof patchBody === 'string' ? patchBody : new TextDecoder().decode(patchBody);

  switch (mediaType) {
    case JSON_PATCH_TYPE:
      return asObject(applyJsonPatch(original, parsePatch(text, 'error decoding patch: ')));
    case MERGE_PATCH_TYPE: {
      const patch = parsePatch(text, 'error decoding patch: ');
      if (patch !== null && !isJsonObject(patch)) {
        throw badPatch(
          `error decoding patch: json: cannot unmarshal ${jsonKindName(patch)} into Go value of type map[string]interface {}`,
        );
      }
      return asObject(mergePatch(original, patch));
    }
    default: {
      // Only a kind with a schema gets here (see supportedPatchTypes).
      const schema = patchSchemaFor(schemaKind as GroupKind | string);
      return strategicMergePatch(original, parsePatch(text, ''), schema ?? {});
    }
  }
}

/**
 * JSON.parse with Go's wording for an empty body; any syntax error is a 400, and so is nesting
 * deeper than Go's decoder allows (the engines below recurse).
 */
function parsePatch(text: string, prefix: string): JsonValue {
  if (text.trim() === '') throw badPatch(`${prefix}unexpected end of JSON input`);
  let patch: JsonValue;
  try {
    patch = JSON.parse(text) as JsonValue;
  } catch (error) {
    throw badPatch(`${prefix}${error instanceof Error ? error.message : String(error)}`);
  }
  if (exceedsJsonDepth(patch)) throw badPatch(`${prefix}exceeded max depth`);
  return patch;
}

/** kube decodes the patched JSON into the kind's type: anything but an object fails with 422. */
function asObject(result: JsonValue): JsonObject {
  if (isJsonObject(result)) return result;
  throw ApiError.invalid({ kind: '' }, '', [
    fieldErrors.invalid(
      'patch',
      JSON.stringify(result),
      `json: cannot unmarshal ${jsonKindName(result)} into Go value of type map[string]interface {}`,
    ),
  ]);
}
