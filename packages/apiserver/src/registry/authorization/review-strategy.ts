import { ApiError, fieldErrors, metaV1Now, type FieldError, type KubeObject } from '@listwatch/api';
import type * as authenticationv1 from 'kubernetes-types/authentication/v1.js';
import type * as authorizationv1 from 'kubernetes-types/authorization/v1.js';
import type * as metav1 from 'kubernetes-types/meta/v1.js';
import type { UserInfo } from '../../authentication/user.js';
import type { Attributes } from '../../authorization/attributes.js';
import { operatorValuesErrors, validateLabelSelectorRequirement } from '../core/pod/validation.js';
import type { ResourceStrategy, UnstoredCreateRequest } from '../rest/resource-strategy.js';
import type { Decoded, TypedObject } from '../rest/typed-object.js';

// The review resources: questions a create asks and the apiserver answers without storing
// anything (kubectl auth can-i, auth can-i --list, auth whoami; webhook authenticators and
// authorizers). Each is kube's REST storage that is only a rest.Creater:
// pkg/registry/authentication/tokenreview/storage.go, .../selfsubjectreview/rest.go and
// pkg/registry/authorization/{subject,selfsubject,localsubject}accessreview/rest.go,
// selfsubjectrulesreview/rest.go; validation from pkg/apis/authorization/validation.

type Json = Record<string, unknown>;

/**
 * authorizationv1.FieldSelectorAttributes / LabelSelectorAttributes (Kubernetes 1.31, newer than
 * kubernetes-types' 1.30); a metav1.FieldSelectorRequirement has a label requirement's fields.
 */
interface SelectorAttributes {
  rawSelector?: string;
  requirements?: metav1.LabelSelectorRequirement[];
}

/** ResourceAttributes with its 1.31 selectors. */
interface ResourceAttributes extends authorizationv1.ResourceAttributes {
  fieldSelector?: SelectorAttributes;
  labelSelector?: SelectorAttributes;
}

/** SubjectAccessReviewSpec (a Self one has only the attributes). */
interface AccessReviewSpec extends Omit<
  authorizationv1.SubjectAccessReviewSpec,
  'resourceAttributes'
> {
  resourceAttributes?: ResourceAttributes;
}

type Spec = Decoded<AccessReviewSpec>;

/** A SubjectAccessReview or LocalSubjectAccessReview as decoded. */
export type SubjectAccessReview = TypedObject<
  Omit<authorizationv1.SubjectAccessReview, 'spec'> & { spec: AccessReviewSpec }
>;
/** A SelfSubjectAccessReview as decoded: the attributes, no subject. */
export type SelfSubjectAccessReview = TypedObject<
  Omit<authorizationv1.SelfSubjectAccessReview, 'spec'> & {
    spec: Pick<AccessReviewSpec, 'resourceAttributes' | 'nonResourceAttributes'>;
  }
>;
export type SelfSubjectRulesReview = TypedObject<authorizationv1.SelfSubjectRulesReview>;
export type TokenReview = TypedObject<authenticationv1.TokenReview>;

/** authenticationv1.UserInfo of a user (omitempty fields left out). */
function userInfo(user: UserInfo): Json {
  return {
    ...(user.name ? { username: user.name } : {}),
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length ? { groups: [...user.groups] } : {}),
    ...(user.extra && Object.keys(user.extra).length ? { extra: user.extra } : {}),
  };
}

/** The review as answered: what was sent, with the server's status. */
function answered(object: KubeObject, status: Json): KubeObject {
  return { ...object, status };
}

/** Go's zero value, or an empty slice or map: what kube's `metav1.ObjectMeta{}` comparison skips. */
function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    value === '' ||
    (typeof value === 'object' && Object.keys(value).length === 0)
  );
}

/**
 * The metadata kube's validation requires to be empty (managedFields aside) once the create
 * handler has wiped creationTimestamp and uid; `except` names what a kind may carry.
 */
function metadataErrors(object: KubeObject, except: readonly string[], detail: string) {
  const meta: Json = { ...object.metadata };
  const set = Object.keys(meta).filter(
    (key) => key !== 'managedFields' && !except.includes(key) && !isEmpty(meta[key]),
  );
  return set.length ? [fieldErrors.invalid('metadata', object.metadata, detail)] : [];
}

/** ValidateSubjectAccessReviewSpec and its Self variant (`subject`: user or groups required). */
function specErrors(spec: Spec, subject: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const resource = spec.resourceAttributes;
  const nonResource = spec.nonResourceAttributes;
  if (resource && nonResource)
    errors.push(
      fieldErrors.invalid(
        'spec.nonResourceAttributes',
        nonResource,
        'cannot be specified in combination with resourceAttributes',
      ),
    );
  if (!resource && !nonResource)
    errors.push(
      fieldErrors.invalid(
        'spec.resourceAttributes',
        null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  if (subject && !spec.user && !spec.groups?.length)
    errors.push(
      fieldErrors.invalid(
        'spec.user',
        spec.user ?? '',
        'at least one of user or group must be specified',
      ),
    );
  if (resource) {
    const at = 'spec.resourceAttributes';
    errors.push(...selectorErrors(resource.fieldSelector, `${at}.fieldSelector`, fieldRequirement));
    errors.push(
      ...selectorErrors(resource.labelSelector, `${at}.labelSelector`, (rq, path) =>
        validateLabelSelectorRequirement(rq, path, { allowUnknownOperator: true }),
      ),
    );
  }
  return errors;
}

type Requirement = Decoded<metav1.LabelSelectorRequirement>;

/**
 * validateFieldSelectorAttributes / validateLabelSelectorAttributes: a rawSelector or
 * requirements, never both, each requirement valid (unknown operators allowed, for newer clients).
 */
function selectorErrors(
  selector: Decoded<SelectorAttributes> | undefined,
  path: string,
  requirementErrors: (requirement: Requirement, path: string) => FieldError[],
): FieldError[] {
  if (!selector) return [];
  const errors: FieldError[] = [];
  const raw = selector.rawSelector ?? '';
  const requirements = selector.requirements ?? [];
  if (raw !== '' && requirements.length > 0)
    errors.push(
      fieldErrors.invalid(
        `${path}.rawSelector`,
        raw,
        'may not specified at the same time as requirements',
      ),
    );
  if (raw === '' && requirements.length === 0)
    errors.push(
      fieldErrors.required(
        `${path}.requirements`,
        `when ${path} is specified, requirements or rawSelector is required`,
      ),
    );
  requirements.forEach((requirement, i) =>
    errors.push(...requirementErrors(requirement, `${path}.requirements[${i}]`)),
  );
  return errors;
}

/** metav1validation.ValidateFieldSelectorRequirement, unknown operators allowed. */
function fieldRequirement(requirement: Requirement, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!requirement.key) errors.push(fieldErrors.required(`${path}.key`, 'must be specified'));
  errors.push(...operatorValuesErrors(requirement.operator ?? '', requirement.values ?? [], path));
  return errors;
}

/**
 * NewInvalid(authorizationapi.Kind(review.Kind), "", errs): the internal object's kind is empty
 * after decoding, so kube's message reads `.authorization.k8s.io "" is invalid: …`.
 */
function invalid(errors: FieldError[]): ApiError {
  return ApiError.invalid({ group: 'authorization.k8s.io', kind: '' }, '', errors);
}

/** authorizationutil.ResourceAttributesFrom / NonResourceAttributesFrom. */
function attributesOf(user: UserInfo, spec: Spec): Attributes {
  const resource = spec.resourceAttributes;
  if (resource) {
    const { namespace, subresource, name } = resource;
    return {
      user,
      verb: resource.verb ?? '',
      resourceRequest: true,
      path: '',
      apiGroup: resource.group ?? '',
      resource: resource.resource ?? '',
      ...(namespace ? { namespace } : {}),
      ...(subresource ? { subresource } : {}),
      ...(name ? { name } : {}),
    };
  }
  const nonResource = spec.nonResourceAttributes ?? {};
  return {
    user,
    verb: nonResource.verb ?? '',
    resourceRequest: false,
    path: nonResource.path ?? '',
    apiGroup: '',
  };
}

/** authorizationutil.AuthorizationAttributesFrom: the subject a SubjectAccessReview names. */
function subjectOf(spec: Spec): UserInfo {
  // A null value (Go's nil slice) is decoded as null, whatever the type says.
  const extra = Object.fromEntries(
    Object.entries(spec.extra ?? {}).map(([k, v]) => [k, [...(v ?? [])]]),
  );
  return {
    name: spec.user ?? '',
    groups: spec.groups ?? [],
    ...(spec.uid ? { uid: spec.uid } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

/** SubjectAccessReviewStatus of the authorizer's decision (denied and reason omitted when empty). */
function accessStatus(
  request: UnstoredCreateRequest<KubeObject>,
  user: UserInfo,
  spec: Spec,
): Json {
  const { decision, reason } = request.authorizer.decide(attributesOf(user, spec));
  return {
    allowed: decision === 'allow',
    ...(decision === 'deny' ? { denied: true } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** TokenReview (tokenreview/storage.go Create): the server's own authenticators answer. */
export const tokenReviewStrategy: ResourceStrategy<TokenReview> = {
  async createWithoutStorage(request) {
    const { object } = request;
    const token = object.spec?.token ?? '';
    if (token === '')
      throw ApiError.badRequest('token is required for TokenReview in authentication');
    const review = await request.authenticator.reviewToken(token, object.spec?.audiences ?? []);
    if (!review) return answered(object, { user: {} });
    return answered(object, {
      authenticated: true,
      user: userInfo(review.user),
      ...(review.audiences.length ? { audiences: review.audiences } : {}),
    });
  },
};

/**
 * SelfSubjectReview (selfsubjectreview/rest.go Create): a new object, stamped now, whose status
 * is the caller; nothing of the body is echoed.
 */
export const selfSubjectReviewStrategy: ResourceStrategy = {
  createWithoutStorage(request) {
    return {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'SelfSubjectReview',
      metadata: { creationTimestamp: metaV1Now() },
      status: { userInfo: userInfo(request.user) },
    };
  },
};

/** SubjectAccessReview: may the user or groups of its spec do this? */
export const subjectAccessReviewStrategy: ResourceStrategy<SubjectAccessReview> = {
  createWithoutStorage(request) {
    const { object } = request;
    const spec = object.spec ?? {};
    const errors = [...specErrors(spec, true), ...metadataErrors(object, [], 'must be empty')];
    if (errors.length) throw invalid(errors);
    return answered(object, accessStatus(request, subjectOf(spec), spec));
  },
};

/** SelfSubjectAccessReview (`kubectl auth can-i`): may the caller do this? */
export const selfSubjectAccessReviewStrategy: ResourceStrategy<SelfSubjectAccessReview> = {
  createWithoutStorage(request) {
    const { object } = request;
    const spec = object.spec ?? {};
    const errors = [...specErrors(spec, false), ...metadataErrors(object, [], 'must be empty')];
    if (errors.length) throw invalid(errors);
    return answered(object, accessStatus(request, request.user, spec));
  },
};

/**
 * LocalSubjectAccessReview: a SubjectAccessReview within the namespace of its URL, which the
 * create handler has set as its metadata.namespace (ValidateLocalSubjectAccessReview).
 */
export const localSubjectAccessReviewStrategy: ResourceStrategy<SubjectAccessReview> = {
  createWithoutStorage(request) {
    const { object } = request;
    const spec = object.spec ?? {};
    const namespace = object.metadata.namespace ?? '';
    const errors = [
      ...specErrors(spec, true),
      ...metadataErrors(object, ['namespace'], 'must be empty except for namespace'),
    ];
    const resource = spec.resourceAttributes;
    if (resource && (resource.namespace ?? '') !== namespace)
      errors.push(
        fieldErrors.invalid(
          'spec.resourceAttributes.namespace',
          resource.namespace ?? '',
          'must match metadata.namespace',
        ),
      );
    if (spec.nonResourceAttributes)
      errors.push(
        fieldErrors.invalid(
          'spec.nonResourceAttributes',
          spec.nonResourceAttributes,
          'disallowed on this kind of request',
        ),
      );
    if (errors.length) throw invalid(errors);
    return answered(object, accessStatus(request, subjectOf(spec), spec));
  },
};

/**
 * SelfSubjectRulesReview (`kubectl auth can-i --list`): the caller's rules in a namespace, in a
 * new object (kube echoes no spec).
 */
export const selfSubjectRulesReviewStrategy: ResourceStrategy<SelfSubjectRulesReview> = {
  createWithoutStorage(request) {
    const namespace = request.object.spec?.namespace ?? '';
    if (namespace === '') throw ApiError.badRequest('no namespace on request');
    return {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectRulesReview',
      metadata: {},
      spec: {},
      status: request.authorizer.rulesReview(request.user, namespace),
    };
  },
};
