import { ApiError, type ListOptions } from '@listwatch/api';
import { SelectionPredicate } from '@listwatch/storage';

/** The (already parsed and validated) selectors of a list/watch as one predicate. */
export function predicateOf(
  options: Pick<ListOptions, 'labelSelector' | 'fieldSelector'>,
): SelectionPredicate {
  if (options.labelSelector.isEmpty() && options.fieldSelector.isEmpty())
    return SelectionPredicate.everything;
  return new SelectionPredicate(options.labelSelector, options.fieldSelector);
}

/** A legacy `/watch/.../name` path or a `metadata.name=` selector pins one object. */
export function pinnedName(
  predicate: SelectionPredicate,
  pathName: string | undefined,
): string | undefined {
  const selected = predicate.exactField('metadata.name');
  if (pathName !== undefined && selected !== undefined && selected !== pathName) {
    throw ApiError.badRequest(
      `metadata.name selector ${selected} does not match the name on the URL (${pathName})`,
    );
  }
  return pathName ?? selected;
}
