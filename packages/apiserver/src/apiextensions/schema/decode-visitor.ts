import type { DecodeVisitor } from '@listwatch/api';
import { structuralForType } from './builtin.js';
import { defaultDecoded, type Defaulters } from './defaulting.js';
import { pruneField } from './pruning.js';

// The write path's one pass over a body (kube's decoder into Go structs, then its defaulter):
// the typed decode of @listwatch/api walks the kind's type and this drops each field a struct's
// type lacks as it meets it (built-in structs are closed, so that is pruning's rule) and sets a
// struct's defaults once it is decoded, by its structural schema. Pruning, decoding and defaulting each keep their one rule.

/**
 * Prunes into `unknown` (when given) and defaults with `defaulters`, struct by struct, in the
 * typed decode's pass.
 */
export function pruneAndDefaultVisitor(
  unknown: string[] | undefined,
  defaulters: Defaulters,
): DecodeVisitor {
  return {
    unknownField(object, key, at) {
      if (unknown) pruneField(object, key, at, unknown);
    },
    leave(typeName, object, filled) {
      defaultDecoded(object, structuralForType(typeName), defaulters, filled);
    },
  };
}
