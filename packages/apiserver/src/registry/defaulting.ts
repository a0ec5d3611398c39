import type { SchemaGvk } from '@listwatch/api';
import { structuralForKind } from '../apiextensions/schema/builtin.js';
import {
  applyDefaults,
  type Defaulter,
  type Defaulters,
} from '../apiextensions/schema/defaulting.js';
import { coreV1Defaults } from './core/v1-defaults.js';

// Defaulting as kube's scheme does it after decoding (k8s.io/kubernetes pkg/apis/*/v1
// zz_generated.defaults.go, made by defaulter-gen): for every object of a type met while walking
// the kind's structural schema, that type's SetDefaults_* function, then the `+default` markers
// of its fields (apiextensions/schema/defaulting.ts walks both). A kind gets the defaults of every
// type it holds (a Deployment's pod template gets SetDefaults_PodSpec and SetDefaults_Container)
// without saying so; what is the kind's own (SetDefaults_Deployment) is in its strategy's `decode`.

export type { Defaulter };

/** SetDefaults_* of the types several kinds share, by schema source type name. */
export const builtinDefaulters: Defaulters = new Map(Object.entries(coreV1Defaults));

/**
 * Applies the defaults of every type `object` holds, walking its kind's type (`gvk`); kinds the
 * schema source lacks have none. Changes `object` in place.
 */
export function setObjectDefaults(object: Record<string, unknown>, gvk: SchemaGvk): void {
  const schema = structuralForKind(gvk);
  if (schema) applyDefaults(object, schema, builtinDefaulters);
}
