import { NAME_COLUMN, type ResourceDefinition } from '@listwatch/api';
import { GROUP } from './types.js';

// The CustomResourceDefinition resource, defined by hand rather than in @listwatch/api's
// builtin-resources.ts: the schema generator reads kubernetes/api's .proto files and derives each
// built-in's message from its group, while apiextensions types live in apiextensions-apiserver's
// generated.proto (another package, self-marshalling JSONSchemaProps). Its OpenAPI schema is the
// generic one for kinds the source lacks.

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
