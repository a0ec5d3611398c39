import {
  canonicalQuantity,
  fieldErrors,
  goSyntax,
  isQualifiedName,
  isValidLabelValue,
  type FieldError,
} from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { isIP } from 'node:net';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// Nodes: pkg/registry/core/node/strategy.go (status kept as sent on create, from the stored node
// on update; the status strategy keeps the spec), the v1 conversion of spec.podCIDR(s)
// (pkg/apis/core/v1/conversion.go) and ValidateNode / ValidateNodeUpdate
// (pkg/apis/core/validation/validation.go).

/** A Node as decoded (kubernetes-types' core/v1 Node). */
export type Node = TypedObject<corev1.Node>;
type Taint = NonNullable<NonNullable<Node['spec']>['taints']>[number];

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];
const CHANGED_POD_CIDR = 'node updates may not change podCIDR except from "" to valid';
const CHANGED_PROVIDER_ID = 'node updates may not change providerID except from "" to valid';

/**
 * Convert_v1_NodeSpec_To_core_NodeSpec and back: podCIDRs is the list, taken from podCIDR when
 * empty; podCIDR reads back as its first entry.
 */
function convertPodCIDRs(node: Node): void {
  const spec = node.spec;
  if (!spec) return;
  if (!spec.podCIDRs?.length && spec.podCIDR) spec.podCIDRs = [spec.podCIDR];
  const first = spec.podCIDRs?.[0];
  if (first !== undefined) spec.podCIDR = first;
}

/** The IP family of a CIDR (netutils.ParseCIDRSloppy), or undefined when it is not one. */
function cidrFamily(value: string): 4 | 6 | undefined {
  const slash = value.indexOf('/');
  if (slash < 0) return undefined;
  const family = isIP(value.slice(0, slash));
  const prefix = value.slice(slash + 1);
  if ((family !== 4 && family !== 6) || !/^[0-9]+$/.test(prefix)) return undefined;
  return Number(prefix) <= (family === 4 ? 32 : 128) ? family : undefined;
}

/** A taint as Go's %#v prints it (the bad value of a duplicate). */
function goTaint(taint: Taint) {
  const q = (v: string | undefined) => JSON.stringify(v ?? '');
  const added = taint.timeAdded === undefined ? '(*v1.Time)(nil)' : '(*v1.Time)(0xc000000000)';
  return goSyntax.raw(
    `core.Taint{Key:${q(taint.key)}, Value:${q(taint.value)}, Effect:${q(taint.effect)}, TimeAdded:${added}}`,
  );
}

/** validateNodeTaints: valid key, value and effect, unique by key and effect. */
function validateNodeTaints(taints: readonly Taint[], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  taints.forEach((taint, i) => {
    const at = `${path}[${i}]`;
    const key = taint.key ?? '';
    for (const msg of isQualifiedName(key)) errors.push(fieldErrors.invalid(`${at}.key`, key, msg));
    const value = taint.value ?? '';
    const valueErrors = isValidLabelValue(value);
    if (valueErrors.length)
      errors.push(fieldErrors.invalid(`${at}.value`, value, valueErrors.join(';')));
    const effect = taint.effect ?? '';
    if (effect === '') errors.push(fieldErrors.required(`${at}.effect`));
    else if (!TAINT_EFFECTS.includes(effect))
      errors.push(fieldErrors.notSupported(`${at}.effect`, effect, TAINT_EFFECTS));
    const unique = JSON.stringify([effect, key]);
    if (seen.has(unique))
      errors.push({
        ...fieldErrors.duplicate(at, goTaint(taint)),
        detail: 'taints must be unique by key and effect pair',
      });
    seen.add(unique);
  });
  return errors;
}

/** ValidateNodeResources: capacity and allocatable quantities are not negative. */
function validateNodeResources(node: Node): FieldError[] {
  const errors: FieldError[] = [];
  for (const list of ['capacity', 'allocatable'] as const)
    for (const [name, value] of Object.entries(node.status?.[list] ?? {})) {
      const text = canonicalQuantity(String(value));
      if (text.startsWith('-'))
        errors.push(
          fieldErrors.invalid(`status.${list}.${name}`, text, 'must be greater than or equal to 0'),
        );
    }
  return errors;
}

/** ValidateNode's podCIDRs: valid CIDRs, at most one of each IP family, no duplicates. */
function validatePodCIDRs(cidrs: readonly string[]): FieldError[] {
  const path = 'spec.podCIDRs';
  const errors: FieldError[] = [];
  const families = cidrs.map((cidr, i) => {
    const family = cidrFamily(cidr);
    if (family === undefined)
      errors.push(
        fieldErrors.invalid(
          `${path}[${i}]`,
          cidr,
          'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)',
        ),
      );
    return family;
  });
  if (cidrs.length > 1) {
    const dualStack = families.includes(4) && families.includes(6);
    if (!dualStack || cidrs.length > 2)
      errors.push(
        fieldErrors.invalid(
          path,
          goSyntax.stringSlice(cidrs),
          'may specify no more than one CIDR for each IP family',
        ),
      );
    cidrs.forEach((cidr, i) => {
      if (cidrs.indexOf(cidr) < i) errors.push(fieldErrors.duplicate(`${path}[${i}]`, cidr));
    });
  }
  return errors;
}

/** ValidateNode (its ObjectMeta checked by the generic steps). */
export function validateNode(node: Node): FieldError[] {
  // Upstream names the path metadata.taints (fldPath is metadata's); clients see that path.
  return [
    ...validateNodeTaints(node.spec?.taints ?? [], 'metadata.taints'),
    ...validateNodeResources(node),
    ...validatePodCIDRs(node.spec?.podCIDRs ?? []),
  ];
}

/** ValidateNodeUpdate: what a node update may change, on the main resource and on /status. */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errors = validateNodeResources(node);
  const seen = new Set<string>();
  (node.status?.addresses ?? []).forEach((address, i) => {
    const key = JSON.stringify([address.type, address.address]);
    if (seen.has(key))
      errors.push(
        fieldErrors.duplicate(
          `status.addresses[${i}]`,
          goSyntax.raw(
            `core.NodeAddress{Type:${JSON.stringify(address.type ?? '')}, Address:${JSON.stringify(address.address ?? '')}}`,
          ),
        ),
      );
    seen.add(key);
  });
  // The controller manager may assign pod CIDRs and a provider ID once; then they stay.
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  const cidrs = node.spec?.podCIDRs ?? [];
  if (oldCIDRs.length > 0) {
    if (oldCIDRs.length !== cidrs.length)
      errors.push(fieldErrors.forbidden('spec.podCIDRs', CHANGED_POD_CIDR));
    else
      oldCIDRs.forEach((cidr, i) => {
        if (cidr !== cidrs[i])
          errors.push(fieldErrors.forbidden('spec.podCIDRs', CHANGED_POD_CIDR));
      });
  }
  const oldProvider = old.spec?.providerID ?? '';
  if (oldProvider !== '' && oldProvider !== (node.spec?.providerID ?? ''))
    errors.push(fieldErrors.forbidden('spec.providerID', CHANGED_PROVIDER_ID));
  errors.push(...validateNodeTaints(node.spec?.taints ?? [], 'metadata.taints'));
  if ((node.spec?.externalID ?? '') !== (old.spec?.externalID ?? ''))
    errors.push(fieldErrors.forbidden('spec.externalID', 'may not be updated'));
  return errors;
}

export const nodeStrategy: ResourceStrategy<Node> = {
  decode: convertPodCIDRs,
  // dropDisabledFields: the removed DynamicKubeletConfig's fields are dropped on create and
  // kept on update only when the stored node had them. The status is kept as sent.
  prepareForCreate(node) {
    if (node.spec) delete node.spec.configSource;
    if (node.status) delete node.status.config;
  },
  prepareForUpdate(next, current) {
    if (next.spec && current.spec?.configSource === undefined) delete next.spec.configSource;
  },
  validate: validateNode,
  validateUpdate: validateNodeUpdate,
};
