import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  breakdownRule,
  compactRules,
  compactString,
  covers,
  goQuote,
  goQuoteList,
} from './policy-comparator.js';
import type { PolicyRule } from './policy-rule.js';

// Covers as k8s.io/component-helpers auth/rbac/validation/policy_comparator.go decides it, and
// the strings escalation errors print (evaluation_helpers.go CompactString, Go's %q).

const rule = (verbs: string[], apiGroups: string[], resources: string[], names?: string[]) => ({
  verbs,
  apiGroups,
  resources,
  ...(names ? { resourceNames: names } : {}),
});

describe('covers', () => {
  it('cases from policy_comparator_test.go', () => {
    // Exact match, and a subset of verbs.
    expect(
      covers([rule(['get', 'list'], [''], ['pods'])], [rule(['get'], [''], ['pods'])]),
    ).toEqual({ covered: true, missing: [] });
    // A verb the owner lacks is reported alone.
    expect(
      covers([rule(['get'], [''], ['pods'])], [rule(['get', 'delete'], [''], ['pods'])]).missing,
    ).toEqual([rule(['delete'], [''], ['pods'])]);
    // Stars cover anything in their position.
    expect(covers([rule(['*'], ['*'], ['*'])], [rule(['patch'], ['apps'], ['x/y'])]).covered).toBe(
      true,
    );
    // `*/scale` covers every resource's scale; a resource does not cover its subresources.
    expect(
      covers([rule(['get'], [''], ['*/scale'])], [rule(['get'], [''], ['a/scale'])]).covered,
    ).toBe(true);
    expect(
      covers([rule(['get'], [''], ['pods'])], [rule(['get'], [''], ['pods/log'])]).covered,
    ).toBe(false);
    // A name-restricted owner covers only those names; a servant without names is not covered.
    const named = [rule(['get'], [''], ['secrets'], ['a', 'b'])];
    expect(covers(named, [rule(['get'], [''], ['secrets'], ['a'])]).covered).toBe(true);
    expect(covers(named, [rule(['get'], [''], ['secrets'], ['c'])]).covered).toBe(false);
    expect(covers(named, [rule(['get'], [''], ['secrets'])]).covered).toBe(false);
    // Non-resource URLs: exact or a `*` prefix.
    const urls: PolicyRule[] = [{ verbs: ['get'], nonResourceURLs: ['/apis/*', '/healthz'] }];
    expect(covers(urls, [{ verbs: ['get'], nonResourceURLs: ['/apis/apps'] }]).covered).toBe(true);
    expect(covers(urls, [{ verbs: ['get'], nonResourceURLs: ['/api'] }]).covered).toBe(false);
    expect(covers(urls, [rule(['get'], [''], ['pods'])]).covered).toBe(false);
  });

  const word = fc.constantFrom('get', 'list', 'watch', 'create', 'delete', 'escalate');
  const group = fc.constantFrom('', 'apps', 'rbac.authorization.k8s.io', 'batch');
  const resource = fc.constantFrom(
    'pods',
    'secrets',
    'roles',
    'deployments',
    'pods/log',
    'x/scale',
  );
  const name = fc.constantFrom('a', 'b', 'c');
  const resourceRule: fc.Arbitrary<PolicyRule> = fc.record(
    {
      verbs: fc.uniqueArray(word, { minLength: 1, maxLength: 3 }),
      apiGroups: fc.uniqueArray(group, { minLength: 1, maxLength: 2 }),
      resources: fc.uniqueArray(resource, { minLength: 1, maxLength: 3 }),
      resourceNames: fc.uniqueArray(name, { maxLength: 2 }),
    },
    { requiredKeys: ['verbs', 'apiGroups', 'resources'] },
  );
  const urlRule: fc.Arbitrary<PolicyRule> = fc.record({
    verbs: fc.uniqueArray(word, { minLength: 1, maxLength: 2 }),
    nonResourceURLs: fc.uniqueArray(fc.constantFrom('/healthz', '/api', '/apis/*', '/version'), {
      minLength: 1,
      maxLength: 2,
    }),
  });
  const rules = fc.array(fc.oneof(resourceRule, urlRule), { maxLength: 4 });

  it('a rule set covers itself (property)', () => {
    fc.assert(fc.property(rules, (set) => covers(set, set).covered));
  });

  it('`*` on everything covers any rule set (property)', () => {
    const everything: PolicyRule[] = [
      { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
      { verbs: ['*'], nonResourceURLs: ['*'] },
    ];
    fc.assert(fc.property(rules, (set) => covers(everything, set).covered));
  });

  it('an owner without one of the servant verbs no longer covers it, and reports it (property)', () => {
    fc.assert(
      fc.property(fc.array(resourceRule, { minLength: 1, maxLength: 4 }), fc.nat(), (set, i) => {
        const servant = set[i % set.length]!;
        const verb = servant.verbs[i % servant.verbs.length]!;
        const owner = set.map((r) => ({ ...r, verbs: r.verbs.filter((v) => v !== verb) }));
        const { covered, missing } = covers(owner, [servant]);
        return !covered && missing.every((m) => m.verbs[0] === verb) && missing.length > 0;
      }),
    );
  });

  it('breakdownRule keeps exactly what a rule grants: each part is covered by the rule, and the parts cover it (property)', () => {
    fc.assert(
      fc.property(fc.oneof(resourceRule, urlRule), (r) => {
        const parts = breakdownRule(r);
        return covers([r], parts).covered && covers(parts, [r]).covered;
      }),
    );
  });
});

describe('the escalation message pieces', () => {
  it("compactString prints a rule as Go's %v of its quoted fields", () => {
    expect(compactString(rule(['get'], [''], ['secrets']))).toBe(
      '{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}',
    );
    expect(compactString({ verbs: ['get', 'list'], nonResourceURLs: ['/x'] })).toBe(
      '{NonResourceURLs:["/x"], Verbs:["get" "list"]}',
    );
    expect(compactString(rule(['get'], ['apps'], ['deployments'], ['d']))).toBe(
      '{APIGroups:["apps"], Resources:["deployments"], ResourceNames:["d"], Verbs:["get"]}',
    );
  });

  it('compactRules joins the verbs of one group, resource and name', () => {
    const missing = [
      rule(['get'], [''], ['pods']),
      rule(['list'], [''], ['pods']),
      rule(['get'], [''], ['pods'], ['a']),
      { verbs: ['get'], nonResourceURLs: ['/x'] },
    ];
    expect(compactRules(missing)).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/x'] },
      rule(['get', 'list'], [''], ['pods']),
      rule(['get'], [''], ['pods'], ['a']),
    ]);
  });

  it("goQuote escapes as Go's strconv.Quote", () => {
    expect(goQuote('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(goQuote('\n\t\x00\x7f')).toBe('"\\n\\t\\x00\\x7f"');
    expect(goQuote('ünï €')).toBe('"ünï €"');
    expect(goQuote('\u00a0\u2028')).toBe('"\\u00a0\\u2028"');
    expect(goQuoteList(['system:authenticated', 'x'])).toBe('["system:authenticated" "x"]');
    expect(goQuoteList([])).toBe('[]');
  });
});
