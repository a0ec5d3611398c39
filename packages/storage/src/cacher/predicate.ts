/** What the cache needs of a label selector (satisfied by @listwatch/api's Selector). */
export interface LabelMatcher {
  matches(labels: Readonly<Record<string, string>>): boolean;
  isEmpty(): boolean;
}

/** What the cache needs of a field selector (satisfied by @listwatch/api's FieldSelector). */
export interface FieldMatcher {
  matches(fields: Readonly<Record<string, string>>): boolean;
  isEmpty(): boolean;
  /** The value an `=`/`==` requirement on `field` demands, if any (for dispatch by index). */
  requiresExactMatch(field: string): string | undefined;
}

/** Label + field selection over precomputed labels and fields (storage.SelectionPredicate). */
export class SelectionPredicate {
  static readonly everything = new SelectionPredicate();

  constructor(
    readonly label?: LabelMatcher,
    readonly field?: FieldMatcher,
  ) {}

  /** No selector at all: remainingItemCount may be reported, every object matches. */
  get empty(): boolean {
    return (this.label?.isEmpty() ?? true) && (this.field?.isEmpty() ?? true);
  }

  matches(
    labels: Readonly<Record<string, string>>,
    fields: Readonly<Record<string, string>>,
  ): boolean {
    if (this.label && !this.label.isEmpty() && !this.label.matches(labels)) return false;
    if (this.field && !this.field.isEmpty() && !this.field.matches(fields)) return false;
    return true;
  }

  exactField(field: string): string | undefined {
    return this.field?.requiresExactMatch(field);
  }
}
