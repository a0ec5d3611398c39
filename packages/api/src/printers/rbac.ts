import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { nestedField as at } from '../unstructured.js';
import { AGE_COLUMN, array, column, CREATED_AT, NAME_COLUMN, wide } from './columns.js';

// The Table printers of the rbac.authorization.k8s.io group (kubernetes pkg/printers/
// internalversion/printers.go: printRole, printRoleBinding and their cluster forms).

/** `ClusterRole/view`: the ROLE column of bindings, as kubectl's printer shows it. */
function roleRef(o: KubeObject): string {
  const ref = at(o, 'roleRef') as { kind?: string; name?: string } | undefined;
  return ref ? `${ref.kind ?? ''}/${ref.name ?? ''}` : '';
}

/** The subjects of a binding of one kind, comma-separated (printers.go printRoleBinding). */
function subjects(o: KubeObject, kind: string): string {
  return array(o, 'subjects')
    .filter((s) => (s as { kind?: string }).kind === kind)
    .map((s) => {
      const subject = s as { name?: string; namespace?: string };
      return kind === 'ServiceAccount'
        ? `${subject.namespace ?? ''}/${subject.name ?? ''}`
        : (subject.name ?? '');
    })
    .join(', ');
}

const bindingColumns = (): TableColumn[] => [
  NAME_COLUMN,
  column('Role', 'RoleRef is the reference to the role the binding grants.', roleRef),
  AGE_COLUMN,
  wide('Users', 'Users in the binding', (o) => subjects(o, 'User')),
  wide('Groups', 'Groups in the binding', (o) => subjects(o, 'Group')),
  wide('ServiceAccounts', 'ServiceAccounts in the binding', (o) => subjects(o, 'ServiceAccount')),
];

export const rbacTableColumns = {
  roles: [NAME_COLUMN, CREATED_AT],
  rolebindings: bindingColumns(),
} satisfies Record<string, TableColumn[]>;
