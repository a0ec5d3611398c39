import type { Condition, ObjectMeta } from 'kubernetes-types/meta/v1.js';

// apiregistration.k8s.io/v1 (k8s.io/kube-aggregator pkg/apis/apiregistration/v1/types.go):
// kubernetes-types is generated from k8s.io/api and does not carry the aggregator's kinds.

/** Where an APIService's group version is served: a Service, or this apiserver (`null`). */
export interface ServiceReference {
  namespace?: string;
  name?: string;
  port?: number;
}

export interface APIServiceSpec {
  service?: ServiceReference | null;
  group?: string;
  version?: string;
  insecureSkipTLSVerify?: boolean;
  caBundle?: string;
  groupPriorityMinimum: number;
  versionPriority: number;
}

export interface APIServiceCondition extends Pick<
  Condition,
  'lastTransitionTime' | 'message' | 'reason' | 'type'
> {
  status: 'True' | 'False' | 'Unknown';
}

export interface APIService {
  apiVersion?: 'apiregistration.k8s.io/v1';
  kind?: 'APIService';
  metadata?: ObjectMeta;
  spec?: APIServiceSpec;
  status?: { conditions?: APIServiceCondition[] };
}
