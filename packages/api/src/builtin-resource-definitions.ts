import { builtinKinds, findBuiltinKind, type BuiltinKind } from './builtin-resources.js';
import { builtinTableColumns } from './builtin-table-printers.js';
import type { ResourceDefinition } from './resource-definition.js';

// The built-in resources as the apiserver serves them: builtin-resources.ts's table with each
// one's Table columns. Apart from that table because the printers load the schema source
// (column descriptions), which a client's kind lookups must not pull into a browser bundle.

function withColumns({ printer, ...kind }: BuiltinKind): ResourceDefinition {
  return { ...kind, tableColumns: builtinTableColumns[printer] };
}

/**
 * Every built-in resource, Table columns included. Discovery lists the groups in the order they
 * first appear here (builtinKinds' order).
 */
export const builtinResources: readonly ResourceDefinition[] = builtinKinds.map(withColumns);

/** findBuiltinKind's answer with its Table columns. */
export function findBuiltinResource(name: string, group?: string): ResourceDefinition | undefined {
  const kind = findBuiltinKind(name, group);
  return kind && builtinResources[builtinKinds.indexOf(kind)];
}
