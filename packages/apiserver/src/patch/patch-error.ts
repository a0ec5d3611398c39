import { ApiError } from '@listwatch/api';

// The Status shapes kube-apiserver answers a failed PATCH with
// (k8s.io/apiserver/pkg/endpoints/handlers/patch.go).

export const PATCH_REJECTED_MESSAGE =
  'the server rejected our request due to an error in our request';

/** 400: the patch document itself cannot be read. */
export function badPatch(message: string): ApiError {
  return ApiError.badRequest(message);
}

/**
 * 422 from `NewGenericServerResponse(422, ...)`: kube replaces the engine's text with a fixed
 * sentence. We keep that sentence and add the engine's text as a cause, so a client still
 * learns which operation failed.
 */
export function unprocessablePatch(reason: string): ApiError {
  return new ApiError({
    code: 422,
    reason: 'Invalid',
    message: PATCH_REJECTED_MESSAGE,
    details: { causes: [{ message: reason }] },
  });
}

/**
 * A plain error of the patch engines (for example a list item without its merge key). kube
 * passes these through as a 500; they are the patch's fault, so here they are a 400 with the
 * engine's text, like the engine errors kube does map (interpretStrategicMergePatchError).
 */
export function patchEngineError(message: string): ApiError {
  return ApiError.badRequest(message);
}

/** 415, worded like negotiation.NewUnsupportedMediaTypeError (which names only what is accepted). */
export function unsupportedPatchType(accepted: readonly string[]): ApiError {
  return ApiError.unsupportedMediaType(accepted);
}
