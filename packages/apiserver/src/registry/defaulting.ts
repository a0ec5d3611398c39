import {
  isRecord,
  jsonFields,
  jsonShape,
  schemaFor,
  type JsonShape,
  type SchemaGvk,
} from '@listwatch/api';
import { coreV1Defaults } from './core/v1-defaults.js';

// Defaulting as kube's scheme does it after decoding (k8s.io/kubernetes pkg/apis/*/v1
// zz_generated.defaults.go, made by defaulter-gen): for every object of a type met while walking
// the kind's type in the schema source, that type's SetDefaults_* function, then the `+default`
// markers of its fields. A kind gets the defaults of every type it holds (a Deployment's pod
// template gets SetDefaults_PodSpec and SetDefaults_Container) without saying so; what is the
// kind's own (SetDefaults_Deployment) is in its strategy's `decode`.

/** A SetDefaults_* function of one type, given a JSON object of that type. */
export type Defaulter = (object: Record<string, unknown>) => void;

/** SetDefaults_* of the types several kinds share, by schema source type name. */
const defaulters: ReadonlyMap<string, Defaulter> = new Map(Object.entries(coreV1Defaults));

/**
 * A `+default` literal applies to a missing field. One equal to Go's zero value changes what is
 * written only for a pointer field, which the source does not tell apart: of those only
 * booleans (`*bool` with `+default=false`) are applied.
 */
function markerDefault(value: string | number | boolean): boolean {
  return value !== '' && value !== 0;
}

function walk(value: unknown, shape: JsonShape): void {
  if (shape.kind === 'list') {
    if (Array.isArray(value)) for (const item of value) walk(item, shape.items);
  } else if (shape.kind === 'map') {
    if (isRecord(value)) for (const item of Object.values(value)) walk(item, shape.values);
  } else if (shape.kind === 'struct' && isRecord(value)) {
    defaulters.get(shape.name)?.(value);
    for (const field of jsonFields(shape.name).values()) {
      if (field.default !== undefined && value[field.name] === undefined) {
        if (markerDefault(field.default)) value[field.name] = field.default;
      }
      const child = value[field.name];
      if (typeof child === 'object' && child !== null) walk(child, jsonShape(field.type));
    }
  }
}

/**
 * Applies the defaults of every type `object` holds, walking its kind's type (`gvk`); kinds the
 * schema source lacks have none. Changes `object` in place.
 */
export function setObjectDefaults(object: Record<string, unknown>, gvk: SchemaGvk): void {
  const schema = schemaFor(gvk);
  if (schema) walk(object, { kind: 'struct', name: schema.name });
}
