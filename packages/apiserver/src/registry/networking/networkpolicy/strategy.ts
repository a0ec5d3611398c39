import { fieldErrors, type FieldError } from '@listwatch/api';
import type * as networkingv1 from 'kubernetes-types/networking/v1.js';
import { kindStrategy, oneOf } from '../../kind-helpers.js';
import type { Decoded, TypedObject } from '../../rest/typed-object.js';
import { PROTOCOLS, validPort, defaultProtocols } from '../validation.js';

// NetworkPolicies: pkg/registry/networking/networkpolicy/strategy.go (generation), their
// v1 defaults (policyTypes) and ValidateNetworkPolicy (pkg/apis/networking/validation).

/** A NetworkPolicy as decoded (kubernetes-types' networking/v1 NetworkPolicy). */
export type NetworkPolicy = TypedObject<networkingv1.NetworkPolicy>;

/** An ingress or an egress rule: what the two share. */
type Rule = { ports?: Decoded<networkingv1.NetworkPolicyPort>[] };

export const networkPolicyStrategy = kindStrategy<NetworkPolicy>({
  generation: true,
  decode(policy) {
    const spec = (policy.spec ??= {});
    for (const rule of spec.ingress ?? []) defaultProtocols(rule.ports);
    for (const rule of spec.egress ?? []) defaultProtocols(rule.ports);
    // SetDefaults_NetworkPolicy: Ingress always, Egress when there are egress rules.
    if (!spec.policyTypes?.length)
      spec.policyTypes = ['Ingress', ...(spec.egress?.length ? ['Egress'] : [])];
  },
  validate(policy) {
    const spec = policy.spec ?? {};
    const errors: FieldError[] = [];
    const types = spec.policyTypes ?? [];
    if (types.length > 2)
      errors.push(
        fieldErrors.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'),
      );
    types.forEach((t, i) =>
      errors.push(...oneOf(t, `spec.policyTypes[${i}]`, ['Ingress', 'Egress'], true)),
    );
    for (const direction of ['ingress', 'egress'] as const) {
      const rules: Rule[] = spec[direction] ?? [];
      rules.forEach((rule, i) => {
        (rule.ports ?? []).forEach((port, j) => {
          const at = `spec.${direction}[${i}].ports[${j}]`;
          errors.push(...oneOf(port.protocol, `${at}.protocol`, PROTOCOLS, true));
          if (typeof port.port === 'number') errors.push(...validPort(port.port, `${at}.port`));
        });
      });
    }
    return errors;
  },
});
