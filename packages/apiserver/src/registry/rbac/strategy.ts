import { ApiError, fieldErrors, goSyntax, type FieldError } from '@listwatch/api';
import type * as rbacv1 from 'kubernetes-types/rbac/v1.js';
import {
  bindingAuthorized,
  confirmNoEscalation,
  escalationAllowed,
  FULL_AUTHORITY,
  isOnlyMutatingGcFields,
  roleEscalationAuthorized,
} from '../../authorization/escalation.js';
import type { PolicyRule } from '../../authorization/policy-rule.js';
import { RBAC_GROUP } from '../../authorization/rbac-authorizer.js';
import type { AdmissionRequest } from '../../admission/admission.js';
import type { ResourceStrategy } from '../rest/resource-strategy.js';
import type { Decoded, TypedObject } from '../rest/typed-object.js';

// The rbac.authorization.k8s.io kinds: writing a role or a binding may not grant more than the
// writer holds (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased).

/** A Role as decoded (kubernetes-types' rbac/v1 Role). */
export type Role = TypedObject<rbacv1.Role>;
/** A ClusterRole as decoded: a Role's rules, and maybe an aggregationRule. */
export type ClusterRole = TypedObject<rbacv1.ClusterRole>;
/** A RoleBinding or a ClusterRoleBinding as decoded (the same fields). */
export type Binding = TypedObject<rbacv1.RoleBinding> | TypedObject<rbacv1.ClusterRoleBinding>;

/**
 * The rules a role grants, as the escalation check reads them. A rule without verbs grants
 * nothing (BreakdownRule ranges over none); validation refuses it after the check, 422.
 */
function rulesOf(role: Role | ClusterRole): PolicyRule[] {
  return (role.rules ?? []).map((rule) => ({ ...rule, verbs: rule.verbs ?? [] }));
}

function hasAggregationRule(role: ClusterRole | undefined): boolean {
  return (role?.aggregationRule?.clusterRoleSelectors?.length ?? 0) > 0;
}

/** ValidatePolicyRule (pkg/apis/rbac/validation/validation.go), for each of `rules`. */
function validatePolicyRules(
  rules: readonly Decoded<rbacv1.PolicyRule>[] | undefined,
  namespaced: boolean,
): FieldError[] {
  const errs: FieldError[] = [];
  (rules ?? []).forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (!rule.verbs?.length)
      errs.push(fieldErrors.required(`${at}.verbs`, 'verbs must contain at least one value'));
    if (rule.nonResourceURLs?.length) {
      if (namespaced)
        errs.push(
          fieldErrors.invalid(
            `${at}.nonResourceURLs`,
            goSyntax.stringSlice(rule.nonResourceURLs),
            'namespaced rules cannot apply to non-resource URLs',
          ),
        );
      if (rule.apiGroups?.length || rule.resources?.length)
        errs.push(
          fieldErrors.invalid(
            `${at}.nonResourceURLs`,
            goSyntax.stringSlice(rule.nonResourceURLs),
            'rules cannot apply to both regular resources and non-resource URLs',
          ),
        );
      return;
    }
    if (!rule.apiGroups?.length)
      errs.push(
        fieldErrors.required(
          `${at}.apiGroups`,
          'resource rules must supply at least one api group',
        ),
      );
    if (!rule.resources?.length)
      errs.push(
        fieldErrors.required(`${at}.resources`, 'resource rules must supply at least one resource'),
      );
  });
  return errs;
}

/**
 * Roles and ClusterRoles: every rule held, or `escalate` on the role; `aggregated` (a ClusterRole
 * with an aggregationRule, now or before) needs full authority.
 */
function confirmRoleNotEscalating(
  { object, oldObject, request, authorizer }: AdmissionRequest<Role | ClusterRole>,
  resource: 'roles' | 'clusterroles',
  aggregated: boolean,
): void {
  const { user } = request;
  if (escalationAllowed(user) || roleEscalationAuthorized(authorizer, request)) return;
  if (oldObject && isOnlyMutatingGcFields(object, oldObject)) return;
  const namespace = request.namespace ?? '';
  const target = { gr: { group: RBAC_GROUP, resource }, name: object.metadata.name ?? '' };
  confirmNoEscalation(authorizer, user, namespace, rulesOf(object), target);
  // An aggregationRule can gather anything (and keep a role from being tightened).
  if (aggregated) {
    try {
      confirmNoEscalation(authorizer, user, namespace, FULL_AUTHORITY, target);
    } catch {
      throw ApiError.forbidden(
        target.gr,
        target.name,
        'must have cluster-admin privileges to use the aggregationRule',
      );
    }
  }
}

export const roleStrategy: ResourceStrategy<Role> = {
  validate: (role) => validatePolicyRules(role.rules, true),
  admit: (admission) => confirmRoleNotEscalating(admission, 'roles', false),
};

export const clusterRoleStrategy: ResourceStrategy<ClusterRole> = {
  validate: (role) => validatePolicyRules(role.rules, false),
  admit: (admission) =>
    confirmRoleNotEscalating(
      admission,
      'clusterroles',
      hasAggregationRule(admission.object) || hasAggregationRule(admission.oldObject),
    ),
};

function roleRefOf(binding: Binding): Decoded<rbacv1.RoleRef> {
  return binding.roleRef ?? {};
}

/** ValidateRoleBindingUpdate's rule: a binding's roleRef never changes (delete and recreate it). */
function roleRefUnchanged(next: Binding, current: Binding): FieldError[] {
  const ref = roleRefOf(next);
  const old = roleRefOf(current);
  if (ref.apiGroup === old.apiGroup && ref.kind === old.kind && ref.name === old.name) return [];
  const printed = `rbac.RoleRef{APIGroup:${JSON.stringify(ref.apiGroup ?? '')}, Kind:${JSON.stringify(ref.kind ?? '')}, Name:${JSON.stringify(ref.name ?? '')}}`;
  return [fieldErrors.invalid('roleRef', goSyntax.raw(printed), 'cannot change roleRef')];
}

/**
 * RoleBindings and ClusterRoleBindings: `bind` on the referenced role, or every rule of it held
 * in the binding's namespace. A missing role is 404, as the registry's rule resolver says.
 */
function bindingStrategyOf(
  resource: 'rolebindings' | 'clusterrolebindings',
): ResourceStrategy<Binding> {
  const kinds = resource === 'rolebindings' ? ['Role', 'ClusterRole'] : ['ClusterRole'];

  /** `bind` on the referenced role, or every rule of it held in the binding's namespace. */
  async function confirmBindable({
    object,
    oldObject,
    request,
    authorizer,
    get,
  }: AdmissionRequest<Binding>): Promise<void> {
    const { user } = request;
    if (escalationAllowed(user)) return;
    if (oldObject && isOnlyMutatingGcFields(object, oldObject)) return;
    const namespace = request.namespace ?? '';
    const ref = roleRefOf(object);
    if (bindingAuthorized(authorizer, user, ref, namespace)) return;
    // Any other reference is refused by validation, after this.
    if (!ref.name || !kinds.includes(ref.kind ?? '')) return;
    const roleResource = ref.kind === 'Role' ? 'roles' : 'clusterroles';
    const role = await get(
      RBAC_GROUP,
      roleResource,
      ref.kind === 'Role' ? namespace : undefined,
      ref.name,
    );
    if (!role) throw ApiError.notFound({ group: RBAC_GROUP, resource: roleResource }, ref.name);
    confirmNoEscalation(authorizer, user, namespace, authorizer.roleRules(role), {
      gr: { group: RBAC_GROUP, resource },
      name: object.metadata.name ?? '',
    });
  }
  return {
    // SetDefaults_RoleBinding: a roleRef without apiGroup is RBAC's.
    decode(binding) {
      const ref = binding.roleRef;
      if (ref && !ref.apiGroup) ref.apiGroup = RBAC_GROUP;
    },
    // The policy-based storage's Update (pkg/registry/rbac/rolebinding/policybased): the
    // escalation check first (403), then the store's ValidateRoleBindingUpdate: the roleRef
    // never changes (422).
    async admit(admission) {
      await confirmBindable(admission);
      const { object, oldObject } = admission;
      if (oldObject) {
        const errors = roleRefUnchanged(object, oldObject);
        if (errors.length)
          throw ApiError.invalid(
            {
              group: RBAC_GROUP,
              kind: resource === 'rolebindings' ? 'RoleBinding' : 'ClusterRoleBinding',
            },
            object.metadata.name ?? '',
            errors,
          );
      }
    },
    // The roleRef part of ValidateRoleBinding/ValidateClusterRoleBinding.
    validate(binding) {
      const ref = roleRefOf(binding);
      const errors: FieldError[] = [];
      if (ref.apiGroup !== RBAC_GROUP)
        errors.push(fieldErrors.notSupported('roleRef.apiGroup', ref.apiGroup ?? '', [RBAC_GROUP]));
      if (!kinds.includes(ref.kind ?? ''))
        errors.push(fieldErrors.notSupported('roleRef.kind', ref.kind ?? '', kinds));
      if (!ref.name) errors.push(fieldErrors.required('roleRef.name'));
      return errors;
    },
  };
}

export const roleBindingStrategy = bindingStrategyOf('rolebindings');
export const clusterRoleBindingStrategy = bindingStrategyOf('clusterrolebindings');
