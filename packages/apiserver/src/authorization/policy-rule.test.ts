import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS } from '../authentication/user.js';
import type { Attributes } from './attributes.js';
import { ruleAllows, type PolicyRule } from './policy-rule.js';

// RBAC as kube-apiserver enforces it (plugin/pkg/auth/authorizer/rbac/rbac.go and
// pkg/apis/rbac/v1/evaluation_helpers.go), with the real kubectl as the client.

const attrs = (over: Partial<Attributes>): Attributes => ({
  user: ANONYMOUS,
  verb: 'get',
  resourceRequest: true,
  path: '/api/v1/namespaces/a/pods/x',
  apiGroup: '',
  resource: 'pods',
  namespace: 'a',
  name: 'x',
  ...over,
});

describe('PolicyRule', () => {
  it('matches verbs, groups, resources, subresources, names and URLs as RuleAllows does', () => {
    const rule: PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
    expect(ruleAllows(attrs({}), rule)).toBe(true);
    expect(ruleAllows(attrs({ verb: 'delete' }), rule)).toBe(false);
    expect(ruleAllows(attrs({ apiGroup: 'apps' }), rule)).toBe(false);
    expect(ruleAllows(attrs({ subresource: 'log' }), rule)).toBe(false);
    expect(ruleAllows(attrs({ subresource: 'log' }), { ...rule, resources: ['pods/log'] })).toBe(
      true,
    );
    expect(ruleAllows(attrs({ subresource: 'scale' }), { ...rule, resources: ['*/scale'] })).toBe(
      true,
    );
    expect(ruleAllows(attrs({}), { ...rule, resourceNames: ['y'] })).toBe(false);
    expect(ruleAllows(attrs({ name: 'y' }), { ...rule, resourceNames: ['y'] })).toBe(true);
    const url = attrs({ resourceRequest: false, path: '/apis/apps' });
    expect(ruleAllows(url, { verbs: ['get'], nonResourceURLs: ['/apis/*'] })).toBe(true);
    expect(ruleAllows(url, { verbs: ['get'], nonResourceURLs: ['/api'] })).toBe(false);
    expect(ruleAllows(url, rule)).toBe(false);
  });

  it('never grants a verb, group or resource that the rule does not name or wildcard (property)', () => {
    const word = fc.constantFrom('get', 'list', 'pods', 'apps', '', 'configmaps', 'x', '*');
    fc.assert(
      fc.property(
        fc.array(word, { maxLength: 3 }),
        fc.array(word, { maxLength: 3 }),
        fc.array(word, { maxLength: 3 }),
        fc.constantFrom('get', 'list', 'watch'),
        fc.constantFrom('', 'apps'),
        fc.constantFrom('pods', 'configmaps'),
        (verbs, apiGroups, resources, verb, apiGroup, resource) => {
          const allowed = ruleAllows(attrs({ verb, apiGroup, resource }), {
            verbs,
            apiGroups,
            resources,
          });
          const names = (list: string[], value: string) =>
            list.includes('*') || list.includes(value);
          return (
            allowed ===
            (names(verbs, verb) && names(apiGroups, apiGroup) && names(resources, resource))
          );
        },
      ),
    );
  });
});
