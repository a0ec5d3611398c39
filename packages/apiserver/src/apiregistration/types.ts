import type { KubeObject } from '@listwatch/api';

// apiregistration.k8s.io/v1 as the aggregator reads it (k8s.io/kube-aggregator
// pkg/apis/apiregistration/v1/types.go). Written by hand, like apiextensions/types.ts: the
// schema source holds k8s.io/api's kinds, not the aggregator's.

export const GROUP = 'apiregistration.k8s.io';

/** The label autoregister keeps its APIServices under (autoregister_controller.go). */
export const AUTO_MANAGED_LABEL = 'kube-aggregator.kubernetes.io/automanaged';

export interface ServiceReference {
  namespace?: string;
  name?: string;
  port?: number;
}

export interface APIServiceCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface APIService extends KubeObject {
  spec?: {
    service?: ServiceReference | null;
    group?: string;
    version?: string;
    insecureSkipTLSVerify?: boolean;
    caBundle?: string;
    groupPriorityMinimum?: number;
    versionPriority?: number;
  };
  status?: { conditions?: APIServiceCondition[] };
}

/** The Available condition, if the APIService has one. */
export function availableCondition(service: APIService): APIServiceCondition | undefined {
  return service.status?.conditions?.find((c) => c.type === 'Available');
}

/** The name an APIService for a group version must have: `<version>.<group>` (`v1.` for core). */
export function apiServiceName(group: string, version: string): string {
  return `${version}.${group}`;
}
