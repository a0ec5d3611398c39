// Server-side apply and managedFields (structured-merge-diff and
// k8s.io/apimachinery/pkg/util/managedfields): see field-manager.ts.
export {
  FieldManager,
  managerOrUserAgent,
  conflictError,
  type FieldManagerScope,
} from './field-manager.js';
export { FieldSet, pathString, type Path, type PathElement } from './fieldpath.js';
export { fieldsV1ToSet, setToFieldsV1, setToJson } from './fields-v1.js';
export { atomForCustomResource, atomForKind, atomFromStructural, type Atom } from './schema.js';
export {
  parentEntries,
  replicasPath,
  scaleEntries,
  type ReplicasPathMappings,
} from './scale-handler.js';
