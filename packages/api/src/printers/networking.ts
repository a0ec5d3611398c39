import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { nestedField as at } from '../unstructured.js';
import { AGE_COLUMN, array, column, NAME_COLUMN, selectorText, text } from './columns.js';

// The Table printers of the networking.k8s.io group (kubernetes pkg/printers/internalversion/
// printers.go: printIngress, printNetworkPolicy).

/** formatHosts: up to three rule hosts, `*` when none names one. */
function ingressHosts(o: KubeObject): string {
  const rules = array(o, 'spec.rules') as { host?: string }[];
  const list = rules.slice(0, 3).flatMap((r) => (r.host ? [r.host] : []));
  if (list.length === 0) return '*';
  const joined = list.join(',');
  return rules.length > 3 ? `${joined} + ${rules.length - 3} more...` : joined;
}

/** ingressLoadBalancerStatusStringer (not wide): IPs and hostnames, cut at 16 characters. */
function ingressAddress(o: KubeObject): string {
  const all = (array(o, 'status.loadBalancer.ingress') as { ip?: string; hostname?: string }[])
    .flatMap((i) => [...(i.ip ? [i.ip] : []), ...(i.hostname ? [i.hostname] : [])])
    .join(',');
  return all.length > 16 ? `${all.slice(0, 13)}...` : all;
}

export const networkingTableColumns = {
  ingresses: [
    NAME_COLUMN,
    column(
      'Class',
      'The name of the IngressClass resource that should be used for additional configuration',
      (o) => text(o, 'spec.ingressClassName'),
    ),
    column(
      'Hosts',
      'Hosts that incoming requests are matched against before the ingress rule',
      ingressHosts,
    ),
    column(
      'Address',
      'Address is a list containing ingress points for the load-balancer',
      ingressAddress,
    ),
    column('Ports', 'Ports of TLS configurations that open', (o) =>
      array(o, 'spec.tls').length > 0 ? '80, 443' : '80',
    ),
    AGE_COLUMN,
  ],
  networkpolicies: [
    NAME_COLUMN,
    column(
      'Pod-Selector',
      'Selects the pods to which this NetworkPolicy object applies. The array of ingress rules is applied to any pods selected by this field. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is NOT optional and follows standard label selector semantics. An empty podSelector matches all pods in this namespace.',
      (o) => selectorText(at(o, 'spec.podSelector') ?? {}),
    ),
    AGE_COLUMN,
  ],
} satisfies Record<string, TableColumn[]>;
