import { NAME_COLUMN, type ResourceDefinition } from '@listwatch/api';
import { GROUP } from './types.js';

// The CustomResourceDefinition resource. Its schema (typed decoding, OpenAPI, protobuf) is the
// schema source's, generated from apiextensions-apiserver's generated.proto like a built-in's;
// the definition lives here, with the apiextensions server that serves it, not in
// @listwatch/api's builtin-resources.ts.

/** `apiextensions.k8s.io/v1` `customresourcedefinitions`: cluster-scoped, with a status. */
export const customResourceDefinitions: ResourceDefinition = {
  group: GROUP,
  version: 'v1',
  kind: 'CustomResourceDefinition',
  listKind: 'CustomResourceDefinitionList',
  plural: 'customresourcedefinitions',
  singular: 'customresourcedefinition',
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  namespaced: false,
  verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  nameRule: 'dns1123Subdomain',
  subresources: ['status'],
  selectableFields: {},
  indexes: {},
  // Kube's default table convertor (rest/table.go): Name and Created At.
  tableColumns: [
    NAME_COLUMN,
    {
      name: 'Created At',
      type: 'date',
      description:
        'CreationTimestamp is a timestamp representing the server time when this object was created.',
      priority: 0,
      cell: (o) => o.metadata.creationTimestamp ?? null,
    },
  ],
  storageResource: `${GROUP}/customresourcedefinitions`,
};
