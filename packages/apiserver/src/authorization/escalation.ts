import { ApiError, type GroupResource, type KubeObject } from '@listwatch/api';
import type { UserInfo } from '../authentication/user.js';
import type { Attributes } from './attributes.js';
import { aggregateErrors, SYSTEM_MASTERS } from './authorizer.js';
import { compactRules, compactString, covers, goQuote, goQuoteList } from './policy-comparator.js';
import type { PolicyRule } from './policy-rule.js';
import type { RequestAuthorizer } from './request-authorizer.js';

// RBAC escalation prevention: nobody grants what they do not hold (pkg/registry/rbac/
// escalation_check.go, validation/rule.go ConfirmNoEscalation, and the policybased storages of
// roles, clusterroles, rolebindings and clusterrolebindings).

/** `*` on everything: what an aggregationRule needs (clusterrole policybased fullAuthority). */
export const FULL_AUTHORITY: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

/** system:masters may grant anything: the apiserver's own loopback identity (EscalationAllowed). */
export function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS);
}

/** The `escalate` verb on the role being written (RoleEscalationAuthorized). */
export function roleEscalationAuthorized(
  authorizer: RequestAuthorizer,
  request: Attributes,
): boolean {
  return authorizer.allowed({
    user: request.user,
    verb: 'escalate',
    resourceRequest: true,
    path: request.path,
    apiGroup: request.apiGroup,
    ...(request.resource !== undefined ? { resource: request.resource } : {}),
    ...(request.namespace !== undefined ? { namespace: request.namespace } : {}),
    ...(request.name !== undefined ? { name: request.name } : {}),
  });
}

export interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

/**
 * The `bind` verb on the referenced role, in the binding's namespace ('' for a
 * ClusterRoleBinding), so a ClusterRole may be bindable in some namespaces only (BindingAuthorized).
 */
export function bindingAuthorized(
  authorizer: RequestAuthorizer,
  user: UserInfo,
  roleRef: RoleRef,
  namespace: string,
): boolean {
  const resource =
    roleRef.kind === 'ClusterRole' ? 'clusterroles' : roleRef.kind === 'Role' ? 'roles' : '';
  if (!resource) return false;
  return authorizer.allowed({
    user,
    verb: 'bind',
    resourceRequest: true,
    path: '',
    apiGroup: roleRef.apiGroup ?? '',
    resource,
    name: roleRef.name ?? '',
    ...(namespace ? { namespace } : {}),
  });
}

/**
 * Why granting `rules` would escalate the user's permissions in `namespace`, worded as
 * ConfirmNoEscalation; undefined when the user already holds every one of them.
 */
export function escalationError(
  authorizer: RequestAuthorizer,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
): string | undefined {
  const held = authorizer.rulesFor(user, namespace);
  const { covered, missing } = covers(held.rules, rules);
  if (covered) return undefined;
  // Each missing permission once. Covers lists a permission as often as the granted rules repeat
  // it (an aggregated ClusterRole such as admin holds get/list/watch of pods from view and from
  // edit), and CompactRules would append every copy's verb: `Verbs:["get" "list" "get" "list"]`.
  const unique = [...new Map(missing.map((rule) => [JSON.stringify(rule), rule])).values()];
  // A sorted set, as sets.NewString().List().
  const lines = [...new Set(compactRules(unique).map(compactString))].sort();
  const message = `user ${goQuote(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  // ConfirmNoEscalation prints its []error of one aggregate with %v.
  return held.errors.length
    ? `${message}; resolution errors: [${aggregateErrors(held.errors)}]`
    : message;
}

/** 403 unless the user holds every rule (ConfirmNoEscalation wrapped in NewForbidden). */
export function confirmNoEscalation(
  authorizer: RequestAuthorizer,
  user: UserInfo,
  namespace: string,
  rules: readonly PolicyRule[],
  target: { gr: GroupResource; name: string },
): void {
  const why = escalationError(authorizer, user, namespace, rules);
  if (why !== undefined) throw ApiError.forbidden(target.gr, target.name, why);
}

function withoutGcFields(object: KubeObject): unknown {
  const {
    ownerReferences: _owners,
    finalizers: _finalizers,
    selfLink: _selfLink,
    resourceVersion: _rv,
    ...metadata
  } = object.metadata;
  return { ...object, metadata };
}

/** Deep equality of JSON values, key order aside. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const ra = a as Record<string, unknown>;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.hasOwn(rb, k) && jsonEqual(ra[k], rb[k]));
}

/**
 * Whether an update only changes what the garbage collector changes (ownerReferences,
 * finalizers): anyone who may update the object may do that (IsOnlyMutatingGCFields).
 */
export function isOnlyMutatingGcFields(next: KubeObject, current: KubeObject): boolean {
  return jsonEqual(withoutGcFields(next), withoutGcFields(current));
}
