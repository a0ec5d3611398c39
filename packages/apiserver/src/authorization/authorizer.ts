import type { KubeObject } from '@listwatch/api';
import type { UserInfo } from '../authentication/user.js';
import type { Attributes } from './attributes.js';
import type { PolicyRule } from './policy-rule.js';

/** An authorizer's answer (k8s.io/apiserver authorizer.Decision). */
export type Decision = 'allow' | 'deny' | 'no-opinion';

/** A decision and why; audit logs record the reason (authorization.k8s.io/reason). */
export interface Authorization {
  decision: Decision;
  reason: string;
}

/**
 * The rules a user holds in a namespace (RuleResolver.RulesFor), and why some could not be
 * resolved (a binding to a role that does not exist): the rules are then a partial list.
 */
export interface ResolvedRules {
  rules: PolicyRule[];
  errors: string[];
}

export interface Authorizer {
  authorize(attributes: Attributes): Authorization;
  /** The rules a user holds in a namespace, for SelfSubjectRulesReview (RuleResolver). */
  rulesFor?(user: UserInfo, namespace: string): ResolvedRules;
  /** The rules a Role or ClusterRole grants, an aggregated ClusterRole's resolved. */
  roleRules?(role: KubeObject): PolicyRule[];
}

const EVERYTHING: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

const NONE: ResolvedRules = { rules: [], errors: [] };

/**
 * Errors as one message, as apimachinery's utilerrors.NewAggregate prints them: the same message
 * once, one alone as it is, several as `[a, b]`.
 */
export function aggregateErrors(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : unique.length ? `[${unique.join(', ')}]` : '';
}

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export const alwaysAllow: Authorizer = {
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: () => ({ rules: [...EVERYTHING], errors: [] }),
};
// authorizerfactory's alwaysDenyAuthorizer gives this reason.
export const alwaysDeny: Authorizer = {
  authorize: () => ({ decision: 'deny', reason: 'Everything is forbidden.' }),
};

/**
 * `--authorization-mode A,B`: each authorizer in turn; the first that allows or denies decides;
 * no opinion from all of them stays no opinion, with their reasons (authorization/union), which
 * a request treats as forbidden and a SubjectAccessReview reports as neither allowed nor denied.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    authorize(attributes) {
      const reasons: string[] = [];
      for (const authorizer of authorizers) {
        const result = authorizer.authorize(attributes);
        if (result.decision !== 'no-opinion') return result;
        if (result.reason) reasons.push(result.reason);
      }
      return { decision: 'no-opinion', reason: reasons.join('\n') };
    },
    rulesFor(user, namespace) {
      const all: ResolvedRules = { rules: [], errors: [] };
      for (const authorizer of authorizers) {
        const { rules, errors } = authorizer.rulesFor?.(user, namespace) ?? NONE;
        all.rules.push(...rules);
        all.errors.push(...errors);
      }
      return all;
    },
    roleRules(role) {
      for (const authorizer of authorizers)
        if (authorizer.roleRules) return authorizer.roleRules(role);
      const rules = role['rules'];
      return Array.isArray(rules) ? (rules as PolicyRule[]) : [];
    },
  };
}

/** system:masters may do anything, whatever RBAC says (the privileged-group authorizer). */
export const SYSTEM_MASTERS = 'system:masters';
export const privilegedGroups: Authorizer = {
  authorize: (attributes) => ({
    decision: attributes.user.groups.includes(SYSTEM_MASTERS) ? 'allow' : 'no-opinion',
    reason: '',
  }),
  rulesFor: (user) => ({
    rules: user.groups.includes(SYSTEM_MASTERS) ? [...EVERYTHING] : [],
    errors: [],
  }),
};
