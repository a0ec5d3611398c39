import type { PolicyRule } from './policy-rule.js';

// Whether one set of rules grants everything another does, as RBAC escalation checks ask it:
// k8s.io/component-helpers auth/rbac/validation/policy_comparator.go (Covers, BreakdownRule),
// pkg/registry/rbac/validation/policy_compact.go (CompactRules) and
// pkg/apis/rbac/v1/evaluation_helpers.go (CompactString).

const ALL = '*';

/** A rule with at most one verb, API group, resource and resource name (or one URL and verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const subrules: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? [])
    for (const resource of rule.resources ?? [])
      for (const verb of rule.verbs) {
        const base = { apiGroups: [group], resources: [resource], verbs: [verb] };
        if (rule.resourceNames?.length)
          for (const name of rule.resourceNames) subrules.push({ ...base, resourceNames: [name] });
        else subrules.push(base);
      }
  // Non-resource URLs combine with verbs only.
  for (const url of rule.nonResourceURLs ?? [])
    for (const verb of rule.verbs) subrules.push({ nonResourceURLs: [url], verbs: [verb] });
  return subrules;
}

const has = (set: readonly string[] | undefined, value: string) => set?.includes(value) ?? false;
const hasAll = (set: readonly string[] | undefined, values: readonly string[] | undefined) =>
  (values ?? []).every((v) => has(set, v));

function resourceCoversAll(owner: readonly string[] | undefined, wanted: readonly string[]) {
  if (has(owner, ALL) || hasAll(owner, wanted)) return true;
  return wanted.every((path) => {
    if (has(owner, path)) return true;
    // Only `*/subresource` widens a subresource; upstream has no `resource/*` here.
    const slash = path.indexOf('/');
    return slash >= 0 && has(owner, `${ALL}/${path.slice(slash + 1)}`);
  });
}

function urlCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith(ALL) && path.startsWith(owner.replace(/\*+$/, '')));
}

/** Whether one owner rule covers a subrule of breakdownRule (ruleCovers). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources ?? []);
  const urls = (sub.nonResourceURLs ?? []).every((path) =>
    (owner.nonResourceURLs ?? []).some((o) => urlCovers(o, path)),
  );
  const ownerNames = owner.resourceNames ?? [];
  const names = sub.resourceNames?.length
    ? ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames)
    : ownerNames.length === 0;
  return verbs && groups && resources && names && urls;
}

/**
 * Whether `owner` grants everything `servant` does, and the subrules it does not: each servant
 * rule is broken down to single verbs, groups, resources and names, each covered by one owner
 * rule or missing.
 */
export function covers(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): { covered: boolean; missing: PolicyRule[] } {
  const missing = servant
    .flatMap(breakdownRule)
    .filter((sub) => !owner.some((rule) => ruleCovers(rule, sub)));
  return { covered: missing.length === 0, missing };
}

/** Joins rules for one group and resource (and at most one name) that differ only by verb. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const compacted: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple =
      names.length <= 1 &&
      !rule.nonResourceURLs?.length &&
      rule.apiGroups?.length === 1 &&
      rule.resources?.length === 1;
    if (!isSimple) {
      compacted.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, names]);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...existing.verbs, ...rule.verbs];
    else simple.set(key, { ...rule, verbs: [...rule.verbs] });
  }
  return [...compacted, ...simple.values()];
}

/** Go's `%q` of a string (strconv.Quote): printable runes as they are, others escaped. */
export function goQuote(value: string): string {
  let out = '"';
  for (const char of value) {
    const code = char.codePointAt(0) ?? 0;
    const named: Record<string, string> = {
      '\x07': '\\a',
      '\b': '\\b',
      '\f': '\\f',
      '\n': '\\n',
      '\r': '\\r',
      '\t': '\\t',
      '\v': '\\v',
      '"': '\\"',
      '\\': '\\\\',
    };
    if (named[char] !== undefined) out += named[char];
    else if (char === ' ' || !/[\p{C}\p{Z}]/u.test(char)) out += char;
    else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code < 0x10000) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += `\\U${code.toString(16).padStart(8, '0')}`;
  }
  return `${out}"`;
}

/** Go's `%q` of a []string: `["a" "b"]`. */
export function goQuoteList(values: readonly string[]): string {
  return `[${values.map(goQuote).join(' ')}]`;
}

/** A rule as escalation errors print it: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  const add = (label: string, values: readonly string[] | undefined) => {
    if (values?.length) parts.push(`${label}:${goQuoteList(values)}`);
  };
  add('APIGroups', rule.apiGroups);
  add('Resources', rule.resources);
  add('NonResourceURLs', rule.nonResourceURLs);
  add('ResourceNames', rule.resourceNames);
  add('Verbs', rule.verbs);
  return `{${parts.join(', ')}}`;
}
