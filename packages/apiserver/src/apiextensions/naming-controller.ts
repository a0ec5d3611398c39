import type {
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionNames,
} from './types.js';
import { establishedCondition } from './establishing-controller.js';
import { conditionOf } from './types.js';

// The names a CRD is served under and its NamesAccepted condition, as kube's naming controller
// computes them (apiextensions-apiserver pkg/controller/status/naming_controller.go
// calculateNamesAndConditions): a name another CRD of the group has accepted is a conflict, and
// the CRD keeps the names it had.

interface UsedNames {
  plurals: Set<string>;
  singulars: Set<string>;
  shortNames: Set<string>;
  kinds: Set<string>;
  listKinds: Set<string>;
}

function usedNames(
  crd: CustomResourceDefinition,
  all: Iterable<CustomResourceDefinition>,
): UsedNames {
  const used: UsedNames = {
    plurals: new Set(),
    singulars: new Set(),
    shortNames: new Set(),
    kinds: new Set(),
    listKinds: new Set(),
  };
  for (const other of all) {
    if (other.metadata.name === crd.metadata.name || other.spec?.group !== crd.spec.group) continue;
    const names = other.status?.acceptedNames ?? {};
    if (names.plural) used.plurals.add(names.plural);
    if (names.singular) used.singulars.add(names.singular);
    for (const s of names.shortNames ?? []) used.shortNames.add(s);
    if (names.kind) used.kinds.add(names.kind);
    if (names.listKind) used.listKinds.add(names.listKind);
  }
  return used;
}

export function condition(
  crd: CustomResourceDefinition,
  type: string,
  status: CustomResourceDefinitionCondition['status'],
  reason: string,
  message: string,
  now: string,
): CustomResourceDefinitionCondition {
  const old = conditionOf(crd, type);
  return {
    type,
    status,
    lastTransitionTime:
      old && old.status === status && old.lastTransitionTime ? old.lastTransitionTime : now,
    reason,
    message,
  };
}

/** The accepted names and the NamesAccepted and Established conditions `crd` should have. */
export function namesAndConditions(
  crd: CustomResourceDefinition,
  all: Iterable<CustomResourceDefinition>,
  now: string,
): {
  acceptedNames: CustomResourceDefinitionNames;
  namesAccepted: CustomResourceDefinitionCondition;
  established: CustomResourceDefinitionCondition;
} {
  const requested = crd.spec.names;
  const used = usedNames(crd, all);
  let conflict: [string, string] | undefined;
  if (requested.plural && used.plurals.has(requested.plural))
    conflict = ['PluralConflict', `"${requested.plural}" is already in use`];
  else if (requested.singular && used.singulars.has(requested.singular))
    conflict = ['SingularConflict', `"${requested.singular}" is already in use`];
  else {
    const short = (requested.shortNames ?? []).find((s) => used.shortNames.has(s));
    if (short !== undefined) conflict = ['ShortNamesConflict', `"${short}" is already in use`];
    else if (requested.kind && used.kinds.has(requested.kind))
      conflict = ['KindConflict', `"${requested.kind}" is already in use`];
    else if (requested.listKind && used.listKinds.has(requested.listKind))
      conflict = ['ListKindConflict', `"${requested.listKind}" is already in use`];
  }
  const acceptedNames = conflict ? (crd.status?.acceptedNames ?? {}) : { ...requested };
  const namesAccepted = conflict
    ? condition(crd, 'NamesAccepted', 'False', conflict[0], conflict[1], now)
    : condition(crd, 'NamesAccepted', 'True', 'NoConflicts', 'no conflicts found', now);
  return { acceptedNames, namesAccepted, established: establishedCondition(crd, !conflict, now) };
}
