import { AGE_COLUMN, NAME_COLUMN, type ResourceDefinition } from '@listwatch/api';
import { availableCondition, GROUP, type APIService } from './types.js';

// The APIService resource, served as kube-aggregator serves it (pkg/registry/apiservice/etcd
// etcd.go): cluster-scoped, with a status, printed with its own table (ConvertToTable).

/** SERVICE: `Local` for an API this server serves, else the Service's `namespace/name`. */
function serviceCell(o: APIService): string {
  const service = o.spec?.service;
  return service ? `${service.namespace ?? ''}/${service.name ?? ''}` : 'Local';
}

/** AVAILABLE: the condition's status, with its reason when it is not True. */
function availableCell(o: APIService): string {
  const condition = availableCondition(o);
  if (!condition) return 'Unknown';
  if (condition.status === 'True' || !condition.reason) return condition.status;
  return `${condition.status} (${condition.reason})`;
}

/** `apiregistration.k8s.io/v1` `apiservices`. */
export const apiServices: ResourceDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'APIService',
  listKind: 'APIServiceList',
  plural: 'apiservices',
  singular: 'apiservice',
  shortNames: [],
  categories: ['api-extensions'],
  namespaced: false,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  // The core group's is `v1.`: a path segment, not a DNS name (validation.go).
  nameRule: 'pathSegment',
  subresources: ['status'],
  selectableFields: {},
  indexes: {},
  tableColumns: [
    NAME_COLUMN,
    {
      name: 'Service',
      type: 'string',
      description: 'The reference to the service that hosts this API endpoint.',
      priority: 0,
      cell: (o) => serviceCell(o),
    },
    {
      name: 'Available',
      type: 'string',
      description: 'Whether this service is available.',
      priority: 0,
      cell: (o) => availableCell(o),
    },
    AGE_COLUMN,
  ],
  storageResource: `${GROUP}/apiservices`,
};
