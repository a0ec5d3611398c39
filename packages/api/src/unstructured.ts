// Objects as JSON decodes them, before any typed view: what apimachinery's
// pkg/apis/meta/v1/unstructured keeps as map[string]interface{}.

/** A JSON object: unstructured.Unstructured's `Object` map. */
export type JsonObject = Record<string, unknown>;

/** Whether `value` is a JSON object (not null, not an array): a `map[string]interface{}`. */
export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The value at a dotted path (`spec.template.spec`) of an object, undefined where a step is
 * missing or not an object: unstructured.NestedFieldNoCopy, the path written with dots.
 */
export function nestedField(object: unknown, path: string): unknown {
  let value: unknown = object;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}
