import type { KubeObject } from '@listwatch/api';

// The built-in kinds' objects as a strategy sees them: kubernetes-types' types (generated from
// Kubernetes' OpenAPI), after the typed decode (rest/decode.ts) has checked every field's Go
// type, so a strategy reads `pod.spec?.nodeName` instead of re-checking shapes.

/**
 * `T` with every field optional, all the way down: what a decoded Go struct holds before
 * validation (a field OpenAPI calls required may still be missing; validation says so).
 */
export type Decoded<T> = T extends readonly (infer U)[]
  ? Decoded<U>[]
  : T extends object
    ? string extends keyof T
      ? { -readonly [K in keyof T]: Decoded<T[K]> } // a map: its values are there
      : { -readonly [K in keyof T]?: Decoded<T[K]> }
    : T;

/** A decoded object of a built-in kind: `TypedObject<Pod>`, its ObjectMeta the server's own. */
export type TypedObject<T extends { metadata?: unknown }> = Omit<Decoded<T>, 'metadata'> &
  KubeObject;
