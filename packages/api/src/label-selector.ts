import {
  requirementMatches,
  requirementToString,
  type LabelRequirement,
  type Labels,
} from './label-requirement.js';

// Label selectors as k8s.io/apimachinery/pkg/labels/selector.go matches and prints them: the
// internalSelector, an AND of Requirements (label-requirement.ts). Parsing the query parameter
// is label-selector-parser.ts; metav1.LabelSelector and label sets are meta-label-selector.ts.

export {
  newLabelRequirement,
  requirementMatches,
  requirementToString,
  type LabelRequirement,
  type LabelSelectorOperator,
  type Labels,
} from './label-requirement.js';

/**
 * A parsed label selector: the AND of its requirements, sorted by key. Immutable; share freely.
 * `nothing()` is the selector that matches no object (a nil metav1.LabelSelector).
 */
export class LabelSelector {
  private static readonly EVERYTHING = new LabelSelector([], true);
  private static readonly NOTHING = new LabelSelector([], false);

  readonly requirements: readonly LabelRequirement[];
  /** False only for `nothing()`: there is nothing to select. */
  readonly selectable: boolean;

  private constructor(requirements: readonly LabelRequirement[], selectable: boolean) {
    // Stable, so equal keys keep their input order (Go's sort.Sort is stable for small inputs).
    this.requirements = Object.freeze(
      [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)),
    );
    this.selectable = selectable;
    Object.freeze(this);
  }

  static everything(): LabelSelector {
    return LabelSelector.EVERYTHING;
  }

  static nothing(): LabelSelector {
    return LabelSelector.NOTHING;
  }

  /** From already-validated requirements (see newLabelRequirement). */
  static fromRequirements(requirements: readonly LabelRequirement[]): LabelSelector {
    return requirements.length === 0
      ? LabelSelector.EVERYTHING
      : new LabelSelector(requirements, true);
  }

  matches(labels: Labels | undefined): boolean {
    if (!this.selectable) return false;
    const set = labels ?? {};
    return this.requirements.every((r) => requirementMatches(r, set));
  }

  /** True when the selector does not restrict anything (`nothing()` is not empty). */
  isEmpty(): boolean {
    return this.selectable && this.requirements.length === 0;
  }

  /** The canonical form: requirements by key, values sorted, comma-separated. */
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }

  /** The one value a key must have (`key=v`, `key==v`, `key in (v)`), if the selector says so. */
  requiresExactMatch(key: string): string | undefined {
    const requirement = this.requirements.find((r) => r.key === key);
    if (!requirement) return undefined;
    const exact =
      requirement.operator === '=' ||
      requirement.operator === '==' ||
      requirement.operator === 'in';
    return exact && requirement.values.length === 1 ? requirement.values[0] : undefined;
  }

  /** A new selector with more requirements (Selector.Add). */
  add(...requirements: LabelRequirement[]): LabelSelector {
    if (!this.selectable) return this;
    return LabelSelector.fromRequirements([...this.requirements, ...requirements]);
  }
}
