import type { UserInfo } from '../authentication/user.js';
import type { Attributes } from './attributes.js';
import type { PolicyRule } from './policy-rule.js';

/** An authorizer's answer (k8s.io/apiserver authorizer.Decision). */
export type Decision = 'allow' | 'deny' | 'no-opinion';

export interface Authorizer {
  authorize(attributes: Attributes): Decision;
  /** The rules a user holds in a namespace, for SelfSubjectRulesReview (RuleResolver). */
  rulesFor?(user: UserInfo, namespace: string): Iterable<PolicyRule>;
}

const EVERYTHING: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'RBAC'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export const alwaysAllow: Authorizer = { authorize: () => 'allow', rulesFor: () => EVERYTHING };
export const alwaysDeny: Authorizer = { authorize: () => 'deny' };

/**
 * `--authorization-mode A,B`: each authorizer in turn; the first that allows or denies decides,
 * no opinion from all of them is a denial (authorizer/union).
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    authorize(attributes) {
      for (const authorizer of authorizers) {
        const decision = authorizer.authorize(attributes);
        if (decision !== 'no-opinion') return decision;
      }
      return 'deny';
    },
    *rulesFor(user, namespace) {
      for (const authorizer of authorizers) yield* authorizer.rulesFor?.(user, namespace) ?? [];
    },
  };
}

/** system:masters may do anything, whatever RBAC says (the privileged-group authorizer). */
export const SYSTEM_MASTERS = 'system:masters';
export const privilegedGroups: Authorizer = {
  authorize: (attributes) =>
    attributes.user.groups.includes(SYSTEM_MASTERS) ? 'allow' : 'no-opinion',
  rulesFor: (user) => (user.groups.includes(SYSTEM_MASTERS) ? EVERYTHING : []),
};
