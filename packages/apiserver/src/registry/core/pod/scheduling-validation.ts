import {
  compareQuantities,
  fieldErrors,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  quantitySign,
  type FieldError,
} from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { Decoded } from '../../rest/typed-object.js';
import { validateLabelSelector } from './validation.js';

// What a pod asks of its node: k8s.io/kubernetes pkg/apis/core/validation/validation.go
// ValidateContainerResourceRequirements (requests ≤ limits) and validateAffinity
// (validateNodeAffinity, ValidateNodeSelector, validatePodAffinityTerm…), with kube's paths and
// messages. Values are already of their Go types (decoding checked them): kubernetes-types'
// core/v1 types as decoded.

type NodeSelectorRequirement = Decoded<corev1.NodeSelectorRequirement>;
type NodeSelectorTerm = Decoded<corev1.NodeSelectorTerm>;
type PodAffinityTerm = Decoded<corev1.PodAffinityTerm>;
/** PodAffinity and PodAntiAffinity: the same fields. */
type PodAffinity = Decoded<corev1.PodAffinity>;

/** helper.IsNativeResource: no domain, or a kubernetes.io one. */
function isNative(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** helper.IsOvercommitAllowed: native resources other than hugepages. */
function overcommitAllowed(name: string): boolean {
  return isNative(name) && !name.startsWith('hugepages-');
}

/** ValidateContainerResourceRequirements: quantities not negative, requests within limits. */
export function validateResourceRequirements(
  resources: Decoded<corev1.ResourceRequirements> | undefined,
  path: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const limits = resources?.limits ?? {};
  const requests = resources?.requests ?? {};
  const limPath = `${path}.limits`;
  const reqPath = `${path}.requests`;
  // A null quantity in the map is decoded as null (Go's zero Quantity): read as ''.
  const text = (quantity: string | undefined) => quantity ?? '';
  const nonNegative = (name: string, quantity: string | undefined, at: string) =>
    quantitySign(text(quantity)) === -1
      ? [fieldErrors.invalid(`${at}[${name}]`, quantity, 'must be greater than or equal to 0')]
      : [];
  // Go ranges over maps in no order; sorted here so the causes are stable.
  for (const name of Object.keys(limits).sort())
    errs.push(...nonNegative(name, limits[name], limPath));
  for (const name of Object.keys(requests).sort()) {
    const quantity = text(requests[name]);
    errs.push(...nonNegative(name, quantity, reqPath));
    const limit = limits[name];
    if (limit !== undefined) {
      const cmp = compareQuantities(quantity, text(limit));
      if (cmp !== 0 && !overcommitAllowed(name))
        errs.push(
          fieldErrors.invalid(
            reqPath,
            quantity,
            `must be equal to ${name} limit of ${text(limit)}`,
          ),
        );
      else if (cmp === 1)
        errs.push(
          fieldErrors.invalid(
            reqPath,
            quantity,
            `must be less than or equal to ${name} limit of ${text(limit)}`,
          ),
        );
    } else if (!overcommitAllowed(name)) {
      errs.push(
        fieldErrors.required(limPath, 'Limit must be set for non overcommitable resources'),
      );
    }
  }
  return errs;
}

function labelName(key: string | undefined, path: string): FieldError[] {
  return isQualifiedName(key ?? '').map((msg) => fieldErrors.invalid(path, key ?? '', msg));
}

/** ValidateNodeSelectorRequirement (a matchExpressions item). */
function nodeSelectorRequirement(rq: NodeSelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = rq.values ?? [];
  switch (rq.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0)
        errs.push(
          fieldErrors.required(
            `${path}.values`,
            "must be specified when `operator` is 'In' or 'NotIn'",
          ),
        );
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0)
        errs.push(
          fieldErrors.forbidden(
            `${path}.values`,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      break;
    case 'Gt':
    case 'Lt':
      if (values.length !== 1)
        errs.push(
          fieldErrors.required(
            `${path}.values`,
            "must be specified single value when `operator` is 'Lt' or 'Gt'",
          ),
        );
      break;
    default:
      errs.push(
        fieldErrors.invalid(`${path}.operator`, rq.operator ?? '', 'not a valid selector operator'),
      );
  }
  return [...errs, ...labelName(rq.key, `${path}.key`)];
}

/** ValidateNodeFieldSelectorRequirement (a matchFields item: only metadata.name). */
function nodeFieldSelectorRequirement(rq: NodeSelectorRequirement, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = rq.values ?? [];
  if (rq.operator === 'In' || rq.operator === 'NotIn') {
    if (values.length !== 1)
      errs.push(
        fieldErrors.required(
          `${path}.values`,
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
  } else
    errs.push(
      fieldErrors.invalid(`${path}.operator`, rq.operator ?? '', 'not a valid selector operator'),
    );
  if (rq.key !== 'metadata.name')
    errs.push(fieldErrors.invalid(`${path}.key`, rq.key ?? '', 'not a valid field selector key'));
  else
    values.forEach((v, i) =>
      errs.push(
        ...isDNS1123Subdomain(v).map((msg) => fieldErrors.invalid(`${path}.values[${i}]`, v, msg)),
      ),
    );
  return errs;
}

/** ValidateNodeSelectorTerm. */
function nodeSelectorTerm(term: NodeSelectorTerm | undefined, path: string): FieldError[] {
  return [
    ...(term?.matchExpressions ?? []).flatMap((rq, j) =>
      nodeSelectorRequirement(rq, `${path}.matchExpressions[${j}]`),
    ),
    ...(term?.matchFields ?? []).flatMap((rq, j) =>
      nodeFieldSelectorRequirement(rq, `${path}.matchFields[${j}]`),
    ),
  ];
}

function weight(value: number | undefined, path: string): FieldError[] {
  const w = value ?? 0;
  return w <= 0 || w > 100 ? [fieldErrors.invalid(path, w, 'must be in the range 1-100')] : [];
}

/** validatePodAffinityTerm. */
function podAffinityTerm(term: PodAffinityTerm | undefined, path: string): FieldError[] {
  const t = term ?? {};
  const errs: FieldError[] = [];
  if (t.labelSelector)
    errs.push(...validateLabelSelector(t.labelSelector, `${path}.labelSelector`));
  if (t.namespaceSelector)
    errs.push(...validateLabelSelector(t.namespaceSelector, `${path}.namespaceSelector`));
  for (const name of t.namespaces ?? [])
    errs.push(
      ...isDNS1123Label(name).map((msg) => fieldErrors.invalid(`${path}.namespace`, name, msg)),
    );
  if (!t.topologyKey) errs.push(fieldErrors.required(`${path}.topologyKey`, 'can not be empty'));
  return [...errs, ...labelName(t.topologyKey, `${path}.topologyKey`)];
}

function podAffinity(affinity: PodAffinity | undefined, path: string): FieldError[] {
  if (!affinity) return [];
  const required = 'requiredDuringSchedulingIgnoredDuringExecution';
  const preferred = 'preferredDuringSchedulingIgnoredDuringExecution';
  return [
    ...(affinity[required] ?? []).flatMap((term, i) =>
      podAffinityTerm(term, `${path}.${required}[${i}]`),
    ),
    ...(affinity[preferred] ?? []).flatMap((term, j) => [
      ...weight(term.weight, `${path}.${preferred}[${j}].weight`),
      ...podAffinityTerm(term.podAffinityTerm, `${path}.${preferred}[${j}].podAffinityTerm`),
    ]),
  ];
}

/** validateAffinity: node affinity, pod affinity and pod anti-affinity. */
export function validateAffinity(
  affinity: Decoded<corev1.Affinity> | undefined,
  path: string,
): FieldError[] {
  if (!affinity) return [];
  const errs: FieldError[] = [];
  const node = affinity.nodeAffinity;
  if (node) {
    const at = `${path}.nodeAffinity`;
    const required = node.requiredDuringSchedulingIgnoredDuringExecution;
    if (required) {
      const termsPath = `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      const terms = required.nodeSelectorTerms ?? [];
      if (terms.length === 0)
        errs.push(fieldErrors.required(termsPath, 'must have at least one node selector term'));
      terms.forEach((term, i) => errs.push(...nodeSelectorTerm(term, `${termsPath}[${i}]`)));
    }
    const preferredPath = `${at}.preferredDuringSchedulingIgnoredDuringExecution`;
    (node.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) =>
      errs.push(
        ...weight(term.weight, `${preferredPath}[${i}].weight`),
        ...nodeSelectorTerm(term.preference, `${preferredPath}[${i}].preference`),
      ),
    );
  }
  errs.push(
    ...podAffinity(affinity.podAffinity, `${path}.podAffinity`),
    ...podAffinity(affinity.podAntiAffinity, `${path}.podAntiAffinity`),
  );
  return errs;
}
