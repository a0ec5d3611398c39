/** Adds `key: value` only when value is defined (exactOptionalPropertyTypes). */
export function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
