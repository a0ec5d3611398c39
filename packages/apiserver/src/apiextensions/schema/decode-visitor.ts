import type { DecodeVisitor } from '@listwatch/api';
import { structuralForType } from './builtin.js';
import { defaultDecoded, type Defaulters } from './defaulting.js';
import { pruneUnknownKeys } from './pruning.js';

// The write path's one pass over a body (kube's decoder into Go structs, then its defaulter):
// the typed decode of @listwatch/api walks the kind's type and, at each struct, this drops the
// unknown fields before its fields are decoded and sets the defaults once they are, by the
// struct's structural schema. Pruning, decoding and defaulting each keep their one rule.

/**
 * Prunes into `unknown` (when given) and defaults with `defaulters`, struct by struct, in the
 * typed decode's pass.
 */
export function pruneAndDefaultVisitor(
  unknown: string[] | undefined,
  defaulters: Defaulters,
): DecodeVisitor {
  return {
    enter(typeName, object, at) {
      if (unknown) pruneUnknownKeys(object, structuralForType(typeName), at, unknown);
    },
    leave(typeName, object, filled) {
      defaultDecoded(object, structuralForType(typeName), defaulters, filled);
    },
  };
}
