// The simple JSONPath of CRD printer columns, selectable fields and scale paths
// (`.spec.replicas`, `.status.conditions[0].type`, `.metadata.labels['app']`): what
// k8s.io/client-go/util/jsonpath evaluates for them with AllowMissingKeys, one result or none.

export type PathStep = string | number;

/** The steps of a path, or undefined when it is not such a simple path. */
export function parseSimplePath(path: string): PathStep[] | undefined {
  let text = path.trim();
  if (text.startsWith('{') && text.endsWith('}')) text = text.slice(1, -1);
  if (text.startsWith('$')) text = text.slice(1);
  const steps: PathStep[] = [];
  const pattern = /\.([A-Za-z0-9_-]+)|\[(\d+)\]|\['([^']*)'\]|\["([^"]*)"\]/y;
  let i = 0;
  while (i < text.length) {
    pattern.lastIndex = i;
    const match = pattern.exec(text);
    if (!match) return undefined;
    if (match[1] !== undefined) steps.push(match[1]);
    else if (match[2] !== undefined) steps.push(Number(match[2]));
    else steps.push(match[3] ?? match[4] ?? '');
    i = pattern.lastIndex;
  }
  return steps.length ? steps : undefined;
}

/** The value at `steps`, or undefined when a key is missing. */
export function valueAt(object: unknown, steps: readonly PathStep[]): unknown {
  let value: unknown = object;
  for (const step of steps) {
    if (typeof step === 'number') {
      if (!Array.isArray(value)) return undefined;
      value = value[step];
    } else {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
      if (!Object.hasOwn(value, step)) return undefined;
      value = (value as Record<string, unknown>)[step];
    }
  }
  return value;
}
