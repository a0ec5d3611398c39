import {
  ApiError,
  fieldErrors,
  isRecord,
  metaV1Now,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import type { UserInfo } from '../../authentication/user.js';
import type { Attributes } from '../../authorization/attributes.js';
import { operatorValuesErrors, validateLabelSelectorRequirement } from '../core/pod/validation.js';
import type { ResourceStrategy, UnstoredCreateRequest } from '../rest/resource-strategy.js';

// The review resources: questions a create asks and the apiserver answers without storing
// anything (kubectl auth can-i, auth can-i --list, auth whoami; webhook authenticators and
// authorizers). Each is kube's REST storage that is only a rest.Creater:
// pkg/registry/authentication/tokenreview/storage.go, .../selfsubjectreview/rest.go and
// pkg/registry/authorization/{subject,selfsubject,localsubject}accessreview/rest.go,
// selfsubjectrulesreview/rest.go; validation from pkg/apis/authorization/validation.

type Json = Record<string, unknown>;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.map(text) : []);

function specOf(object: KubeObject): Json {
  return isRecord(object['spec']) ? object['spec'] : {};
}

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

/**
 * The metadata kube's validation requires to be empty (managedFields aside) once the create
 * handler has wiped creationTimestamp and uid; `except` names what a kind may carry.
 */
function metadataErrors(object: KubeObject, except: readonly string[], detail: string) {
  const meta = object.metadata as Json;
  const set = Object.keys(meta).filter(
    (key) =>
      key !== 'managedFields' &&
      !except.includes(key) &&
      meta[key] !== undefined &&
      meta[key] !== null &&
      meta[key] !== '' &&
      !(Array.isArray(meta[key]) && meta[key].length === 0) &&
      !(isRecord(meta[key]) && Object.keys(meta[key]).length === 0),
  );
  return set.length ? [fieldErrors.invalid('metadata', meta, detail)] : [];
}

/** ValidateSubjectAccessReviewSpec and its Self variant (`subject`: user or groups required). */
function specErrors(spec: Json, subject: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const resource = spec['resourceAttributes'];
  const nonResource = spec['nonResourceAttributes'];
  if (isRecord(resource) && isRecord(nonResource))
    errors.push(
      fieldErrors.invalid(
        'spec.nonResourceAttributes',
        nonResource,
        'cannot be specified in combination with resourceAttributes',
      ),
    );
  if (!isRecord(resource) && !isRecord(nonResource))
    errors.push(
      fieldErrors.invalid(
        'spec.resourceAttributes',
        null,
        'exactly one of nonResourceAttributes or resourceAttributes must be specified',
      ),
    );
  if (subject && text(spec['user']) === '' && strings(spec['groups']).length === 0)
    errors.push(
      fieldErrors.invalid(
        'spec.user',
        text(spec['user']),
        'at least one of user or group must be specified',
      ),
    );
  if (isRecord(resource)) {
    const at = 'spec.resourceAttributes';
    errors.push(
      ...selectorErrors(resource['fieldSelector'], `${at}.fieldSelector`, fieldRequirement),
    );
    errors.push(
      ...selectorErrors(resource['labelSelector'], `${at}.labelSelector`, (rq, path) =>
        validateLabelSelectorRequirement(rq, path, { allowUnknownOperator: true }),
      ),
    );
  }
  return errors;
}

/**
 * validateFieldSelectorAttributes / validateLabelSelectorAttributes: a rawSelector or
 * requirements, never both, each requirement valid (unknown operators allowed, for newer clients).
 */
function selectorErrors(
  selector: unknown,
  path: string,
  requirementErrors: (requirement: Json, path: string) => FieldError[],
): FieldError[] {
  if (!isRecord(selector)) return [];
  const errors: FieldError[] = [];
  const raw = text(selector['rawSelector']);
  const requirements = Array.isArray(selector['requirements']) ? selector['requirements'] : [];
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
    errors.push(
      ...requirementErrors(isRecord(requirement) ? requirement : {}, `${path}.requirements[${i}]`),
    ),
  );
  return errors;
}

/** metav1validation.ValidateFieldSelectorRequirement, unknown operators allowed. */
function fieldRequirement(requirement: Json, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (text(requirement['key']) === '')
    errors.push(fieldErrors.required(`${path}.key`, 'must be specified'));
  const values = Array.isArray(requirement['values']) ? requirement['values'] : [];
  errors.push(...operatorValuesErrors(text(requirement['operator']), values, path));
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
function attributesOf(user: UserInfo, spec: Json): Attributes {
  const resource = spec['resourceAttributes'];
  if (isRecord(resource)) {
    const optional = (key: string, as = key) =>
      text(resource[key]) ? { [as]: text(resource[key]) } : {};
    return {
      user,
      verb: text(resource['verb']),
      resourceRequest: true,
      path: '',
      apiGroup: text(resource['group']),
      resource: text(resource['resource']),
      ...optional('namespace'),
      ...optional('subresource'),
      ...optional('name'),
    };
  }
  const nonResource = isRecord(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : {};
  return {
    user,
    verb: text(nonResource['verb']),
    resourceRequest: false,
    path: text(nonResource['path']),
    apiGroup: '',
  };
}

/** authorizationutil.AuthorizationAttributesFrom: the subject a SubjectAccessReview names. */
function subjectOf(spec: Json): UserInfo {
  const extra = isRecord(spec['extra'])
    ? Object.fromEntries(Object.entries(spec['extra']).map(([k, v]) => [k, strings(v)]))
    : {};
  return {
    name: text(spec['user']),
    groups: strings(spec['groups']),
    ...(text(spec['uid']) ? { uid: text(spec['uid']) } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

/** SubjectAccessReviewStatus of the authorizer's decision (denied and reason omitted when empty). */
function accessStatus(request: UnstoredCreateRequest, user: UserInfo, spec: Json): Json {
  const { decision, reason } = request.authorizer.decide(attributesOf(user, spec));
  return {
    allowed: decision === 'allow',
    ...(decision === 'deny' ? { denied: true } : {}),
    ...(reason ? { reason } : {}),
  };
}

/** TokenReview (tokenreview/storage.go Create): the server's own authenticators answer. */
export const tokenReviewStrategy: ResourceStrategy = {
  async createWithoutStorage(request) {
    const { object } = request;
    const spec = specOf(object);
    const token = text(spec['token']);
    if (token === '')
      throw ApiError.badRequest('token is required for TokenReview in authentication');
    const review = await request.authenticator.reviewToken(token, strings(spec['audiences']));
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
export const subjectAccessReviewStrategy: ResourceStrategy = {
  createWithoutStorage(request) {
    const { object } = request;
    const spec = specOf(object);
    const errors = [...specErrors(spec, true), ...metadataErrors(object, [], 'must be empty')];
    if (errors.length) throw invalid(errors);
    return answered(object, accessStatus(request, subjectOf(spec), spec));
  },
};

/** SelfSubjectAccessReview (`kubectl auth can-i`): may the caller do this? */
export const selfSubjectAccessReviewStrategy: ResourceStrategy = {
  createWithoutStorage(request) {
    const { object } = request;
    const spec = specOf(object);
    const errors = [...specErrors(spec, false), ...metadataErrors(object, [], 'must be empty')];
    if (errors.length) throw invalid(errors);
    return answered(object, accessStatus(request, request.user, spec));
  },
};

/**
 * LocalSubjectAccessReview: a SubjectAccessReview within the namespace of its URL, which the
 * create handler has set as its metadata.namespace (ValidateLocalSubjectAccessReview).
 */
export const localSubjectAccessReviewStrategy: ResourceStrategy = {
  createWithoutStorage(request) {
    const { object } = request;
    const spec = specOf(object);
    const namespace = object.metadata.namespace ?? '';
    const errors = [
      ...specErrors(spec, true),
      ...metadataErrors(object, ['namespace'], 'must be empty except for namespace'),
    ];
    const resource = spec['resourceAttributes'];
    if (isRecord(resource) && text(resource['namespace']) !== namespace)
      errors.push(
        fieldErrors.invalid(
          'spec.resourceAttributes.namespace',
          text(resource['namespace']),
          'must match metadata.namespace',
        ),
      );
    if (isRecord(spec['nonResourceAttributes']))
      errors.push(
        fieldErrors.invalid(
          'spec.nonResourceAttributes',
          spec['nonResourceAttributes'],
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
export const selfSubjectRulesReviewStrategy: ResourceStrategy = {
  createWithoutStorage(request) {
    const namespace = text(specOf(request.object)['namespace']);
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
