import { ApiError, fieldErrors, goSyntax, type FieldError, type KubeObject } from '@listwatch/api';
import {
  bindingAuthorized,
  confirmNoEscalation,
  escalationAllowed,
  FULL_AUTHORITY,
  isOnlyMutatingGcFields,
  roleEscalationAuthorized,
  type RoleRef,
} from '../../authorization/escalation.js';
import type { PolicyRule } from '../../authorization/policy-rule.js';
import { RBAC_GROUP } from '../../authorization/rbac-authorizer.js';
import type { AdmissionRequest } from '../../admission/admission.js';
import type { ResourceStrategy } from '../rest/resource-strategy.js';

// The rbac.authorization.k8s.io kinds: writing a role or a binding may not grant more than the
// writer holds (pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased).

function rulesOf(object: KubeObject): PolicyRule[] {
  const rules = object['rules'];
  return Array.isArray(rules) ? (rules as PolicyRule[]) : [];
}

function hasAggregationRule(object: KubeObject | undefined): boolean {
  const rule = object?.['aggregationRule'] as { clusterRoleSelectors?: unknown[] } | undefined;
  return (rule?.clusterRoleSelectors?.length ?? 0) > 0;
}

/** ValidatePolicyRule (pkg/apis/rbac/validation/validation.go), for each of `rules`. */
function validatePolicyRules(object: KubeObject, namespaced: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? (value as unknown[]) : []);
  rulesOf(object).forEach((rule, i) => {
    const at = `rules[${i}]`;
    if (list(rule.verbs).length === 0)
      errs.push(fieldErrors.required(`${at}.verbs`, 'verbs must contain at least one value'));
    if (list(rule.nonResourceURLs).length > 0) {
      if (namespaced)
        errs.push(
          fieldErrors.invalid(
            `${at}.nonResourceURLs`,
            goSyntax.stringSlice(list(rule.nonResourceURLs) as string[]),
            'namespaced rules cannot apply to non-resource URLs',
          ),
        );
      if (list(rule.apiGroups).length > 0 || list(rule.resources).length > 0)
        errs.push(
          fieldErrors.invalid(
            `${at}.nonResourceURLs`,
            goSyntax.stringSlice(list(rule.nonResourceURLs) as string[]),
            'rules cannot apply to both regular resources and non-resource URLs',
          ),
        );
      return;
    }
    if (list(rule.apiGroups).length === 0)
      errs.push(
        fieldErrors.required(
          `${at}.apiGroups`,
          'resource rules must supply at least one api group',
        ),
      );
    if (list(rule.resources).length === 0)
      errs.push(
        fieldErrors.required(`${at}.resources`, 'resource rules must supply at least one resource'),
      );
  });
  return errs;
}

/** Roles and ClusterRoles: every rule held, or `escalate` on the role. */
function roleStrategyOf(resource: 'roles' | 'clusterroles'): ResourceStrategy {
  return {
    validate: (role) => validatePolicyRules(role, resource === 'roles'),
    admit({ object, oldObject, request, authorizer }: AdmissionRequest) {
      const { user } = request;
      if (escalationAllowed(user) || roleEscalationAuthorized(authorizer, request)) return;
      if (oldObject && isOnlyMutatingGcFields(object, oldObject)) return;
      const namespace = request.namespace ?? '';
      const target = { gr: { group: RBAC_GROUP, resource }, name: object.metadata.name ?? '' };
      confirmNoEscalation(authorizer, user, namespace, rulesOf(object), target);
      // An aggregationRule can gather anything (and keep a role from being tightened).
      if (
        resource === 'clusterroles' &&
        (hasAggregationRule(object) || hasAggregationRule(oldObject))
      ) {
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
    },
  };
}

function roleRefOf(object: KubeObject): RoleRef {
  const ref = object['roleRef'];
  return typeof ref === 'object' && ref !== null ? ref : {};
}

/** ValidateRoleBindingUpdate's rule: a binding's roleRef never changes (delete and recreate it). */
function roleRefUnchanged(next: KubeObject, current: KubeObject): FieldError[] {
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
function bindingStrategyOf(resource: 'rolebindings' | 'clusterrolebindings'): ResourceStrategy {
  const kinds = resource === 'rolebindings' ? ['Role', 'ClusterRole'] : ['ClusterRole'];

  /** `bind` on the referenced role, or every rule of it held in the binding's namespace. */
  async function confirmBindable({
    object,
    oldObject,
    request,
    authorizer,
    get,
  }: AdmissionRequest): Promise<void> {
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
      const ref = binding['roleRef'];
      if (typeof ref === 'object' && ref !== null && !Array.isArray(ref)) {
        const roleRef = ref as RoleRef;
        if (!roleRef.apiGroup) roleRef.apiGroup = RBAC_GROUP;
      }
    },
    // The policy-based storage's Update (pkg/registry/rbac/rolebinding/policybased): the
    // escalation check first (403), then the store's ValidateRoleBindingUpdate: the roleRef
    // never changes (422).
    async admit(admission: AdmissionRequest) {
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

export const roleStrategy = roleStrategyOf('roles');
export const clusterRoleStrategy = roleStrategyOf('clusterroles');
export const roleBindingStrategy = bindingStrategyOf('rolebindings');
export const clusterRoleBindingStrategy = bindingStrategyOf('clusterrolebindings');
