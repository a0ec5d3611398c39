import { fieldErrors, type FieldError } from '@listwatch/api';
import { child, kindStrategy, listAt, oneOf, recordAt } from '../../kind-helpers.js';
import { PROTOCOLS, validPort, defaultProtocols } from '../validation.js';

// NetworkPolicies: pkg/registry/networking/networkpolicy/strategy.go (generation), their
// v1 defaults (policyTypes) and ValidateNetworkPolicy (pkg/apis/networking/validation).

export const networkPolicyStrategy = kindStrategy({
  generation: true,
  decode(policy) {
    const spec = child(policy, 'spec');
    for (const rule of listAt(spec, 'ingress')) defaultProtocols(listAt(rule, 'ports'));
    for (const rule of listAt(spec, 'egress')) defaultProtocols(listAt(rule, 'ports'));
    // SetDefaults_NetworkPolicy: Ingress always, Egress when there are egress rules.
    if (listAt(spec, 'policyTypes').length === 0) {
      spec['policyTypes'] = ['Ingress', ...(listAt(spec, 'egress').length > 0 ? ['Egress'] : [])];
    }
  },
  validate(policy) {
    const spec = recordAt(policy, 'spec');
    const errors: FieldError[] = [];
    const types = listAt(spec, 'policyTypes');
    if (types.length > 2)
      errors.push(
        fieldErrors.invalid('spec.policyTypes', types, 'may not specify more than two policyTypes'),
      );
    types.forEach((t, i) =>
      errors.push(...oneOf(t, `spec.policyTypes[${i}]`, ['Ingress', 'Egress'], true)),
    );
    for (const direction of ['ingress', 'egress'] as const) {
      listAt(spec, direction).forEach((rule, i) => {
        listAt(rule, 'ports').forEach((p, j) => {
          const port = recordAt({ p }, 'p');
          const at = `spec.${direction}[${i}].ports[${j}]`;
          errors.push(...oneOf(port['protocol'], `${at}.protocol`, PROTOCOLS, true));
          if (typeof port['port'] === 'number')
            errors.push(...validPort(port['port'], `${at}.port`));
        });
      });
    }
    return errors;
  },
});
