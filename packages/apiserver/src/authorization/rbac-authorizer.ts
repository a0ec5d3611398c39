import { labelSelectorFromMetaV1, type KubeObject, type MetaLabelSelector } from '@listwatch/api';
import type { UserInfo } from '../authentication/user.js';
import type { Attributes } from './attributes.js';
import {
  aggregateErrors,
  type Authorization,
  type Authorizer,
  type ResolvedRules,
} from './authorizer.js';
import { ruleAllows, type PolicyRule } from './policy-rule.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

interface Subject {
  /** User, Group or ServiceAccount. */
  kind: string;
  name: string;
  namespace?: string;
}

interface RoleRef {
  /** Role or ClusterRole. */
  kind: string;
  name: string;
}

/**
 * A rule and the binding that grants it, described as RBAC reasons name it; or, for a binding
 * whose role cannot be resolved, the error (VisitRulesFor's `visitor(nil, nil, err)`).
 */
export type SourcedRule =
  | { rule: PolicyRule; source: () => string; error?: undefined }
  | { rule?: undefined; source?: undefined; error: string };

/** The RBAC objects an authorizer reads, kept current by whoever watches them. */
export interface RbacPolicy {
  roles(namespace: string): Iterable<KubeObject>;
  role(namespace: string, name: string): KubeObject | undefined;
  clusterRoles(): Iterable<KubeObject>;
  clusterRole(name: string): KubeObject | undefined;
  roleBindings(namespace: string): Iterable<KubeObject>;
  clusterRoleBindings(): Iterable<KubeObject>;
}

function rulesOf(object: KubeObject | undefined): PolicyRule[] {
  const rules = object?.['rules'];
  return Array.isArray(rules) ? (rules as PolicyRule[]) : [];
}

function subjectsOf(binding: KubeObject): Subject[] {
  const subjects = binding['subjects'];
  return Array.isArray(subjects) ? (subjects as Subject[]) : [];
}

/** Whether a binding's subject is this user (plugin/pkg/auth/authorizer/rbac appliesToUser). */
function appliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case 'User':
      return user.name === subject.name;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const ns = subject.namespace || namespace;
      return ns !== '' && user.name === `system:serviceaccount:${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

/**
 * Kubernetes' RBAC authorizer (plugin/pkg/auth/authorizer/rbac/rbac.go): a request is allowed
 * when a rule of a role bound to the user allows it — ClusterRoleBindings everywhere,
 * RoleBindings in their namespace. An aggregated ClusterRole (aggregationRule) has the rules of
 * every ClusterRole its selectors pick, as the clusterrole-aggregation controller would write.
 */
export class RbacAuthorizer implements Authorizer {
  constructor(private readonly policy: RbacPolicy) {}

  /** The rules of a ClusterRole, aggregated ones resolved. */
  clusterRoleRules(role: KubeObject | undefined, seen = new Set<string>()): PolicyRule[] {
    if (!role) return [];
    const aggregation = role['aggregationRule'] as
      { clusterRoleSelectors?: MetaLabelSelector[] } | undefined;
    const selectors = aggregation?.clusterRoleSelectors ?? [];
    if (selectors.length === 0) return rulesOf(role);
    seen.add(role.metadata.name ?? '');
    const rules: PolicyRule[] = [];
    for (const selector of selectors) {
      let matches;
      try {
        matches = labelSelectorFromMetaV1(selector);
      } catch {
        continue; // an invalid selector aggregates nothing
      }
      for (const other of this.policy.clusterRoles()) {
        if (seen.has(other.metadata.name ?? '') || !matches.matches(other.metadata.labels))
          continue;
        rules.push(...this.clusterRoleRules(other, seen));
      }
    }
    return rules;
  }

  /** The rules a Role or ClusterRole grants (GetRoleReferenceRules on the object). */
  roleRules(role: KubeObject): PolicyRule[] {
    return role.kind === 'ClusterRole' ? this.clusterRoleRules(role) : rulesOf(role);
  }

  /**
   * The rules a binding's roleRef grants, or why there are none (GetRoleReferenceRules: the
   * listers' NotFound, worded `role.rbac.authorization.k8s.io "name" not found`).
   */
  private refRules(ref: RoleRef, namespace: string): PolicyRule[] | string {
    const notFound = (resource: string) =>
      `${resource}.${RBAC_GROUP} ${JSON.stringify(ref.name)} not found`;
    switch (ref.kind) {
      case 'ClusterRole': {
        const role = this.policy.clusterRole(ref.name);
        return role ? this.clusterRoleRules(role) : notFound('clusterrole');
      }
      case 'Role': {
        const role = namespace ? this.policy.role(namespace, ref.name) : undefined;
        return role ? rulesOf(role) : notFound('role');
      }
      default:
        return `unsupported role reference kind: ${JSON.stringify(ref.kind)}`;
    }
  }

  /**
   * Every rule that applies to the user in a namespace ('' for cluster scope), with its source
   * (VisitRulesFor): ClusterRoleBindings, then the namespace's RoleBindings.
   */
  *visitRulesFor(user: UserInfo, namespace: string): Generator<SourcedRule> {
    const scopes: [string, Iterable<KubeObject>][] = [['', this.policy.clusterRoleBindings()]];
    if (namespace) scopes.push([namespace, this.policy.roleBindings(namespace)]);
    for (const [scope, bindings] of scopes) {
      for (const binding of bindings) {
        const subject = subjectsOf(binding).find((s) => appliesTo(user, s, scope));
        if (!subject) continue;
        const ref = binding['roleRef'] as RoleRef;
        const rules = this.refRules(ref, scope);
        if (typeof rules === 'string') {
          yield { error: rules };
          continue;
        }
        const source = () => describeBinding(binding, ref, subject, scope);
        for (const rule of rules) yield { rule, source };
      }
    }
  }

  /** Every rule that applies to the user in a namespace ('' for cluster scope). */
  rulesFor(user: UserInfo, namespace: string): ResolvedRules {
    const resolved: ResolvedRules = { rules: [], errors: [] };
    for (const { rule, error } of this.visitRulesFor(user, namespace))
      if (rule) resolved.rules.push(rule);
      else resolved.errors.push(error);
    return resolved;
  }

  /**
   * Allowed by the first rule that allows it; the reason names its binding. Otherwise no
   * opinion, with the bindings that could not be resolved as the reason (rbac.go Authorize).
   */
  authorize(attributes: Attributes): Authorization {
    const errors: string[] = [];
    for (const visited of this.visitRulesFor(attributes.user, attributes.namespace ?? '')) {
      if (!visited.rule) errors.push(visited.error);
      else if (ruleAllows(attributes, visited.rule))
        return { decision: 'allow', reason: `RBAC: allowed by ${visited.source()}` };
    }
    return {
      decision: 'no-opinion',
      reason: errors.length ? `RBAC: ${aggregateErrors(errors)}` : '',
    };
  }
}

/** rule.go's describers: `ClusterRoleBinding "b" of ClusterRole "r" to User "alice"`. */
function describeBinding(
  binding: KubeObject,
  ref: RoleRef,
  subject: Subject,
  namespace: string,
): string {
  const name = binding.metadata.name ?? '';
  const who =
    subject.kind === 'ServiceAccount'
      ? `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace || namespace}`)}`
      : `${subject.kind} ${JSON.stringify(subject.name)}`;
  const kind = namespace ? 'RoleBinding' : 'ClusterRoleBinding';
  const id = namespace ? `${name}/${namespace}` : name;
  return `${kind} ${JSON.stringify(id)} of ${ref.kind} ${JSON.stringify(ref.name)} to ${who}`;
}
