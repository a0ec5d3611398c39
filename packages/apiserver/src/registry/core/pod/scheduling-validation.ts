import {
  compareQuantities,
  fieldErrors,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isRecord,
  quantitySign,
  type FieldError,
} from '@listwatch/api';
import { records, text, validateLabelSelector } from './validation.js';

// What a pod asks of its node: k8s.io/kubernetes pkg/apis/core/validation/validation.go
// ValidateContainerResourceRequirements (requests ≤ limits) and validateAffinity
// (validateNodeAffinity, ValidateNodeSelector, validatePodAffinityTerm…), with kube's paths and
// messages. Values are already of their Go types (decoding checked them).

/** helper.IsNativeResource: no domain, or a kubernetes.io one. */
function isNative(name: string): boolean {
  return !name.includes('/') || name.includes('kubernetes.io/');
}

/** helper.IsOvercommitAllowed: native resources other than hugepages. */
function overcommitAllowed(name: string): boolean {
  return isNative(name) && !name.startsWith('hugepages-');
}

/** ValidateContainerResourceRequirements: quantities not negative, requests within limits. */
export function validateResourceRequirements(resources: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const r = isRecord(resources) ? resources : {};
  const limits = isRecord(r['limits']) ? r['limits'] : {};
  const requests = isRecord(r['requests']) ? r['requests'] : {};
  const limPath = `${path}.limits`;
  const reqPath = `${path}.requests`;
  const nonNegative = (name: string, quantity: unknown, at: string) =>
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

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

function labelName(key: unknown, path: string): FieldError[] {
  return isQualifiedName(text(key)).map((msg) => fieldErrors.invalid(path, key ?? '', msg));
}

/** ValidateNodeSelectorRequirement (a matchExpressions item). */
function nodeSelectorRequirement(rq: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(rq['values']);
  switch (rq['operator']) {
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
        fieldErrors.invalid(
          `${path}.operator`,
          rq['operator'] ?? '',
          'not a valid selector operator',
        ),
      );
  }
  return [...errs, ...labelName(rq['key'], `${path}.key`)];
}

/** ValidateNodeFieldSelectorRequirement (a matchFields item: only metadata.name). */
function nodeFieldSelectorRequirement(rq: Record<string, unknown>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const values = list(rq['values']);
  if (rq['operator'] === 'In' || rq['operator'] === 'NotIn') {
    if (values.length !== 1)
      errs.push(
        fieldErrors.required(
          `${path}.values`,
          "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
        ),
      );
  } else
    errs.push(
      fieldErrors.invalid(
        `${path}.operator`,
        rq['operator'] ?? '',
        'not a valid selector operator',
      ),
    );
  if (rq['key'] !== 'metadata.name')
    errs.push(
      fieldErrors.invalid(`${path}.key`, rq['key'] ?? '', 'not a valid field selector key'),
    );
  else
    values.forEach((v, i) =>
      errs.push(
        ...isDNS1123Subdomain(text(v)).map((msg) =>
          fieldErrors.invalid(`${path}.values[${i}]`, v, msg),
        ),
      ),
    );
  return errs;
}

/** ValidateNodeSelectorTerm. */
function nodeSelectorTerm(term: unknown, path: string): FieldError[] {
  const t = isRecord(term) ? term : {};
  return [
    ...records(t['matchExpressions']).flatMap((rq, j) =>
      nodeSelectorRequirement(rq, `${path}.matchExpressions[${j}]`),
    ),
    ...records(t['matchFields']).flatMap((rq, j) =>
      nodeFieldSelectorRequirement(rq, `${path}.matchFields[${j}]`),
    ),
  ];
}

function weight(value: unknown, path: string): FieldError[] {
  const w = typeof value === 'number' ? value : 0;
  return w <= 0 || w > 100 ? [fieldErrors.invalid(path, w, 'must be in the range 1-100')] : [];
}

/** validatePodAffinityTerm. */
function podAffinityTerm(term: unknown, path: string): FieldError[] {
  const t = isRecord(term) ? term : {};
  const errs: FieldError[] = [];
  if (isRecord(t['labelSelector']))
    errs.push(...validateLabelSelector(t['labelSelector'], `${path}.labelSelector`));
  if (isRecord(t['namespaceSelector']))
    errs.push(...validateLabelSelector(t['namespaceSelector'], `${path}.namespaceSelector`));
  for (const name of list(t['namespaces']))
    errs.push(
      ...isDNS1123Label(text(name)).map((msg) =>
        fieldErrors.invalid(`${path}.namespace`, name, msg),
      ),
    );
  if (!text(t['topologyKey']))
    errs.push(fieldErrors.required(`${path}.topologyKey`, 'can not be empty'));
  return [...errs, ...labelName(t['topologyKey'], `${path}.topologyKey`)];
}

function podAffinity(affinity: unknown, path: string): FieldError[] {
  if (!isRecord(affinity)) return [];
  const required = 'requiredDuringSchedulingIgnoredDuringExecution';
  const preferred = 'preferredDuringSchedulingIgnoredDuringExecution';
  return [
    ...list(affinity[required]).flatMap((term, i) =>
      podAffinityTerm(term, `${path}.${required}[${i}]`),
    ),
    ...records(affinity[preferred]).flatMap((term, j) => [
      ...weight(term['weight'], `${path}.${preferred}[${j}].weight`),
      ...podAffinityTerm(term['podAffinityTerm'], `${path}.${preferred}[${j}].podAffinityTerm`),
    ]),
  ];
}

/** validateAffinity: node affinity, pod affinity and pod anti-affinity. */
export function validateAffinity(affinity: unknown, path: string): FieldError[] {
  if (!isRecord(affinity)) return [];
  const errs: FieldError[] = [];
  const node = affinity['nodeAffinity'];
  if (isRecord(node)) {
    const at = `${path}.nodeAffinity`;
    const required = node['requiredDuringSchedulingIgnoredDuringExecution'];
    if (isRecord(required)) {
      const termsPath = `${at}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms`;
      const terms = list(required['nodeSelectorTerms']);
      if (terms.length === 0)
        errs.push(fieldErrors.required(termsPath, 'must have at least one node selector term'));
      terms.forEach((term, i) => errs.push(...nodeSelectorTerm(term, `${termsPath}[${i}]`)));
    }
    const preferredPath = `${at}.preferredDuringSchedulingIgnoredDuringExecution`;
    records(node['preferredDuringSchedulingIgnoredDuringExecution']).forEach((term, i) =>
      errs.push(
        ...weight(term['weight'], `${preferredPath}[${i}].weight`),
        ...nodeSelectorTerm(term['preference'], `${preferredPath}[${i}].preference`),
      ),
    );
  }
  errs.push(
    ...podAffinity(affinity['podAffinity'], `${path}.podAffinity`),
    ...podAffinity(affinity['podAntiAffinity'], `${path}.podAntiAffinity`),
  );
  return errs;
}
