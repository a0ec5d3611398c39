// encoding/json's Marshal as kube-apiserver writes JSON into strings it stores (continue tokens,
// managedFields' FieldsV1 keys, kubectl's last-applied annotation, autoscaling/v1's round-trip
// annotations): JSON.stringify's text, with the HTML-safe escapes Go adds (encode.go
// encodeState.string with escapeHTML: `<`, `>`, `&`, U+2028 and U+2029 as `\u003c` and so on).

const HTML_UNSAFE = /[<>&\u2028\u2029]/g;

/** json.Marshal(value): JSON.stringify's text with Go's HTML-safe escapes. */
export function goJsonMarshal(value: unknown): string {
  const text = JSON.stringify(value);
  // Outside strings JSON has none of these characters, so escaping the whole text is exact.
  return text.replace(HTML_UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
