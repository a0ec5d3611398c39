/**
 * A boolean query parameter as Kubernetes decodes one (apimachinery's
 * `runtime.Convert_Slice_string_To_bool`): absent is false; the first value is false when it is
 * `0` or `false` in any case (Go's `strings.EqualFold`), and true otherwise, `?watch` and
 * `?watch=yes` included. It never fails: a query boolean has no invalid spelling.
 *
 * Takes what URLSearchParams.get, getAll or koa's `ctx.query[name]` return.
 */
export function queryBool(value: string | readonly string[] | null | undefined): boolean {
  const first = typeof value === 'string' ? value : value?.[0];
  if (first === undefined) return false;
  return !(first === '0' || equalFoldFalse(first));
}

// Each letter of "false" with what Unicode simple case folding maps to it: only `s` has a third
// (U+017F LATIN SMALL LETTER LONG S), which strings.EqualFold accepts too.
const FALSE_FOLDS = ['fF', 'aA', 'lL', 'sS\u017f', 'eE'] as const;

/** strings.EqualFold(value, "false"). */
function equalFoldFalse(value: string): boolean {
  if (value.length !== FALSE_FOLDS.length) return false;
  return FALSE_FOLDS.every((folds, i) => folds.includes(value[i]!));
}
