import { describe, expect, it } from 'vitest';
import { demoPolicy } from './policy.js';
import { demoComponents, identityOf } from './secure-cluster.js';

// The secure demo's policy as data: every component is bound to a role, and no component role
// can grant itself more (kube's bootstrap policy gives controllers no RBAC writes, escalate,
// bind or impersonate either).

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}
interface Rule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
}

const { roles, bindings } = demoPolicy();

function bound(user: string, groups: readonly string[]): string[] {
  return bindings
    .filter((b) =>
      ((b['subjects'] as Subject[]) ?? []).some((s) =>
        s.kind === 'User'
          ? s.name === user
          : s.kind === 'Group'
            ? groups.includes(s.name)
            : user === `system:serviceaccount:${s.namespace}:${s.name}`,
      ),
    )
    .map((b) => (b['roleRef'] as { name: string }).name);
}

const rulesOf = (role: string): Rule[] =>
  (roles.find((r) => r.metadata.name === role)?.['rules'] as Rule[] | undefined) ?? [];

describe('the secure demo policy', () => {
  it('binds every component but the admin to exactly one role of its own', () => {
    for (const component of demoComponents(['node-1', 'node-2'])) {
      if (component === 'admin') continue;
      const { user, groups } = identityOf(component);
      expect(bound(user, groups), component).toHaveLength(1);
    }
    expect(bound('system:serviceaccount:kube-system:deployment-controller', [])).toEqual([
      'system:controller:deployment-controller',
    ]);
    expect(bound('system:node:node-2', ['system:nodes'])).toEqual(['system:node']);
  });

  it('grants no component RBAC writes, escalate, bind, impersonate or a wildcard verb', () => {
    for (const role of roles) {
      for (const rule of rulesOf(role.metadata.name ?? '')) {
        expect(rule.verbs, role.metadata.name).not.toContain('*');
        for (const verb of ['escalate', 'bind', 'impersonate'])
          expect(rule.verbs, role.metadata.name).not.toContain(verb);
        const writes = rule.verbs.some((v) => !['get', 'list', 'watch'].includes(v));
        if (writes && rule.apiGroups?.includes('*') !== true)
          expect(rule.apiGroups ?? [], role.metadata.name).not.toContain(
            'rbac.authorization.k8s.io',
          );
      }
    }
  });

  it('lets the scheduler bind pods but not delete them, and the dashboard only read', () => {
    const scheduler = rulesOf('system:kube-scheduler');
    expect(scheduler).toContainEqual(
      expect.objectContaining({ verbs: ['create'], resources: ['pods/binding', 'bindings'] }),
    );
    for (const rule of scheduler)
      if (rule.resources?.includes('pods')) expect(rule.verbs).not.toContain('delete');
    for (const rule of rulesOf('listwatch-demo-dashboard'))
      expect(['get', 'list', 'watch']).toEqual(expect.arrayContaining(rule.verbs));
  });
});
