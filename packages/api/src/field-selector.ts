import { ApiError } from './api-error.js';
import type { KubeObject } from './object-meta.js';
import type { FieldGetter, ResourceDefinition } from './resource-definition.js';

// Field selectors as k8s.io/apimachinery/pkg/fields/selector.go parses and prints them, and as
// kube-apiserver checks them against a kind's field label conversion (runtime.Scheme
// ConvertFieldLabel, pkg/apis/core/v1/conversion.go).

/** `==` parses to `=`: Kubernetes keeps only Equals and NotEquals. */
export type FieldSelectorOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldSelectorOperator;
  readonly value: string;
}

/** The fields of one object, by name; an absent field reads as "" (fields.Set.Get). */
export type Fields = Readonly<Record<string, string>> | ((field: string) => string | undefined);

function readField(fields: Fields, field: string): string {
  if (typeof fields === 'function') return fields(field) ?? '';
  return Object.prototype.hasOwnProperty.call(fields, field) ? (fields[field] ?? '') : '';
}

/** fields.EscapeValue: `\` → `\\`, `,` → `\,`, `=` → `\=`. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (ch) => `\\${ch}`);
}

/** fields.UnescapeValue; a bad escape or a bare `,`/`=` is a 400 BadRequest. */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const ch of value) {
    if (inSlash) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw ApiError.badRequest(`invalid field selector: invalid escape sequence: \\${ch}`);
      }
      out += ch;
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',' || ch === '=') {
      // Go formats the rune with %v, i.e. as its code point number (`=` → 61).
      throw ApiError.badRequest(
        `invalid field selector: unescaped character in value: ${ch.codePointAt(0)}`,
      );
    } else {
      out += ch;
    }
  }
  if (inSlash) throw ApiError.badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** splitTerms: split on commas that are not escaped; the escapes stay in the terms. */
function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const ch = selector[i];
    if (inSlash) inSlash = false;
    else if (ch === '\\') inSlash = true;
    else if (ch === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** splitTerm: the first `!=`, `==` or `=` splits; field names have no escaping. */
function splitTerm(term: string): { field: string; operator: string; value: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const operator of ['!=', '==', '=']) {
      if (term.startsWith(operator, i)) {
        return { field: term.slice(0, i), operator, value: term.slice(i + operator.length) };
      }
    }
  }
  return undefined;
}

function requirementToString(r: FieldRequirement): string {
  return `${r.field}${r.operator}${escapeFieldValue(r.value)}`;
}

/** The fields every resource can be selected by (DefaultMetaV1FieldSelectorConversion). */
export const DEFAULT_SELECTABLE_FIELDS: Readonly<Record<string, FieldGetter>> = Object.freeze({
  'metadata.name': (o: KubeObject) => o.metadata.name ?? '',
  'metadata.namespace': (o: KubeObject) => o.metadata.namespace ?? '',
});

/** An immutable parsed field selector: the AND of its requirements. */
export class FieldSelector {
  private static readonly EVERYTHING = new FieldSelector([]);

  readonly requirements: readonly FieldRequirement[];

  private constructor(requirements: readonly FieldRequirement[]) {
    this.requirements = Object.freeze([...requirements]);
    Object.freeze(this);
  }

  static everything(): FieldSelector {
    return FieldSelector.EVERYTHING;
  }

  /**
   * From requirements, ordered by their printed form. Go sorts the raw terms instead, which can
   * print `a==z,a=b` as `a=z,a=b` and re-parse to another order; ordering by the printed form
   * makes toString canonical. Order never changes what matches.
   */
  static fromRequirements(requirements: readonly FieldRequirement[]): FieldSelector {
    if (requirements.length === 0) return FieldSelector.EVERYTHING;
    const sorted = requirements
      .map((r) => ({
        r: Object.freeze({ field: r.field, operator: r.operator, value: r.value }),
        s: requirementToString(r),
      }))
      .sort((a, b) => (a.s < b.s ? -1 : a.s > b.s ? 1 : 0))
      .map(({ r }) => r);
    return new FieldSelector(sorted);
  }

  /** fields.SelectorFromSet: every field equal to its value. */
  static fromSet(set: Readonly<Record<string, string>>): FieldSelector {
    return FieldSelector.fromRequirements(
      Object.entries(set).map(([field, value]) => ({ field, operator: '=' as const, value })),
    );
  }

  matches(fields: Fields): boolean {
    return this.requirements.every(
      (r) => (readField(fields, r.field) === r.value) === (r.operator === '='),
    );
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  /** Comma-separated `field=value` / `field!=value` terms, values escaped. */
  toString(): string {
    return this.requirements.map(requirementToString).join(',');
  }

  /** The value `field` must equal (`field=v`), if some requirement says so (RequiresExactMatch). */
  requiresExactMatch(field: string): string | undefined {
    return this.requirements.find((r) => r.field === field && r.operator === '=')?.value;
  }

  /**
   * Checks every field against what the resource can be selected by: `metadata.name`,
   * `metadata.namespace` and its `selectableFields`. Unknown fields are a 400 BadRequest worded
   * as kube-apiserver words them: a kind with its own field label conversion says
   * `field label not supported: X`; a kind without one (no extra selectable fields) falls back to
   * DefaultMetaV1FieldSelectorConversion's `"X" is not a known field selector: only ...`.
   */
  validateFor(definition: Pick<ResourceDefinition, 'selectableFields'>): this {
    const ownFields = Object.keys(definition.selectableFields);
    for (const { field } of this.requirements) {
      if (Object.prototype.hasOwnProperty.call(DEFAULT_SELECTABLE_FIELDS, field)) continue;
      if (Object.prototype.hasOwnProperty.call(definition.selectableFields, field)) continue;
      if (ownFields.length === 0) {
        throw ApiError.badRequest(
          `${JSON.stringify(field)} is not a known field selector: only "metadata.name", "metadata.namespace"`,
        );
      }
      throw ApiError.badRequest(`field label not supported: ${field}`);
    }
    return this;
  }

  /**
   * A predicate over objects of `definition` (validated first). Each field is read through the
   * definition's getter, so the cache can also precompute fields once per object.
   */
  matcherFor<T extends KubeObject>(
    definition: Pick<ResourceDefinition<T>, 'selectableFields'>,
  ): (object: T) => boolean {
    this.validateFor(definition as Pick<ResourceDefinition, 'selectableFields'>);
    if (this.isEmpty()) return () => true;
    const getters = this.requirements.map((r) => {
      const own = Object.prototype.hasOwnProperty.call(definition.selectableFields, r.field)
        ? definition.selectableFields[r.field]
        : undefined;
      return own ?? (DEFAULT_SELECTABLE_FIELDS[r.field] as FieldGetter<T>);
    });
    return (object) =>
      this.requirements.every((r, i) => {
        const getter = getters[i];
        return ((getter ? getter(object) : '') === r.value) === (r.operator === '=');
      });
  }
}

/**
 * fields.ParseSelector: the `fieldSelector` query parameter. Terms are `field=value`,
 * `field==value` or `field!=value`, comma-separated; `\,` `\=` `\\` escape values. The empty
 * string selects everything. Errors are 400 BadRequest with Kubernetes' messages.
 */
export function parseFieldSelector(selector: string): FieldSelector {
  const terms = splitTerms(selector).sort();
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const split = splitTerm(term);
    if (!split)
      throw ApiError.badRequest(`invalid selector: '${selector}'; can't understand '${term}'`);
    requirements.push({
      field: split.field,
      operator: split.operator === '!=' ? '!=' : '=',
      value: unescapeFieldValue(split.value),
    });
  }
  return FieldSelector.fromRequirements(requirements);
}

/**
 * The object a selector pins down by `metadata.name=X` / `metadata.namespace=Y`
 * (SelectionPredicate.MatchesSingle / MatchesSingleNamespace): the watch cache dispatches such
 * watchers by key instead of testing them against every event.
 */
export function exactNameAndNamespace(selector: FieldSelector): {
  name?: string;
  namespace?: string;
} {
  const name = selector.requiresExactMatch('metadata.name');
  const namespace = selector.requiresExactMatch('metadata.namespace');
  return {
    ...(name !== undefined ? { name } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
  };
}
