import type { Attributes } from './attributes.js';

/** rbac/v1 PolicyRule. */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = '*';

function has(values: readonly string[] | undefined, value: string): boolean {
  return values !== undefined && (values.includes(ALL) || values.includes(value));
}

/** A rule's resources match `resource` or `resource/subresource` (rbac/v1 evaluation_helpers.go). */
function resourceMatches(
  rule: PolicyRule,
  resource: string,
  subresource: string | undefined,
): boolean {
  const combined = subresource ? `${resource}/${subresource}` : resource;
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (!subresource) continue;
    // `*/scale` is every resource's scale; `pods/*` every subresource of pods.
    if (r === `${ALL}/${subresource}` || r === `${resource}/${ALL}`) return true;
  }
  return false;
}

/** nonResourceURLs: exact, or a prefix ending in `*`. */
function urlMatches(rule: PolicyRule, path: string): boolean {
  return (rule.nonResourceURLs ?? []).some(
    (url) =>
      url === ALL || url === path || (url.endsWith(ALL) && path.startsWith(url.slice(0, -1))),
  );
}

/** RuleAllows: whether one rule grants what the attributes ask for. */
export function ruleAllows(attributes: Attributes, rule: PolicyRule): boolean {
  if (!has(rule.verbs, attributes.verb)) return false;
  if (!attributes.resourceRequest) return urlMatches(rule, attributes.path);
  if (!has(rule.apiGroups, attributes.apiGroup)) return false;
  if (!resourceMatches(rule, attributes.resource ?? '', attributes.subresource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (attributes.name !== undefined && names.includes(attributes.name));
}
