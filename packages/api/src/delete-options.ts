import { ApiError } from './api-error.js';
import { fieldErrors, type FieldError } from './field-error.js';
import { queryBool } from './query-bool.js';

/** How dependents go when their owner is deleted (metav1.DeletionPropagation). */
export type DeletionPropagation = 'Foreground' | 'Background' | 'Orphan';

const PROPAGATIONS: readonly string[] = ['Foreground', 'Background', 'Orphan'];

/** metav1.DeleteOptions: what a DELETE or deletecollection may say, in its body or its query. */
export interface DeleteOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Deprecated by propagationPolicy; both set is invalid. */
  orphanDependents?: boolean;
  propagationPolicy?: DeletionPropagation;
  /** `['All']`: validate and answer, persist nothing. */
  dryRun?: string[];
}

function badField(field: string, want: string): ApiError {
  return ApiError.badRequest(`DeleteOptions.${field}: expected ${want}`);
}

function optionalString(value: unknown, field: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw badField(field, 'a string');
  return value;
}

/**
 * Decodes a DELETE body (already parsed JSON/CBOR) into DeleteOptions: a type mismatch is a 400,
 * as a strict decode into metav1.DeleteOptions is in kube-apiserver.
 */
export function decodeDeleteOptions(body: unknown): DeleteOptions {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw ApiError.badRequest('DeleteOptions must be an object');
  const raw = body as Record<string, unknown>;
  if (raw['kind'] !== undefined && raw['kind'] !== 'DeleteOptions')
    throw ApiError.badRequest(
      `decoded object of kind ${JSON.stringify(raw['kind'])} cannot be converted to DeleteOptions`,
    );
  const options: DeleteOptions = {};
  const grace = raw['gracePeriodSeconds'];
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isSafeInteger(grace))
      throw badField('gracePeriodSeconds', 'an integer');
    options.gracePeriodSeconds = grace;
  }
  const preconditions = raw['preconditions'];
  if (preconditions !== undefined && preconditions !== null) {
    if (typeof preconditions !== 'object' || Array.isArray(preconditions))
      throw badField('preconditions', 'an object');
    const p = preconditions as Record<string, unknown>;
    const uid = optionalString(p['uid'], 'preconditions.uid');
    const resourceVersion = optionalString(p['resourceVersion'], 'preconditions.resourceVersion');
    options.preconditions = {
      ...(uid !== undefined ? { uid } : {}),
      ...(resourceVersion !== undefined ? { resourceVersion } : {}),
    };
  }
  const orphan = raw['orphanDependents'];
  if (orphan !== undefined && orphan !== null) {
    if (typeof orphan !== 'boolean') throw badField('orphanDependents', 'a boolean');
    options.orphanDependents = orphan;
  }
  const policy = optionalString(raw['propagationPolicy'], 'propagationPolicy');
  if (policy !== undefined) options.propagationPolicy = policy as DeletionPropagation;
  const dryRun = raw['dryRun'];
  if (dryRun !== undefined && dryRun !== null) {
    if (!Array.isArray(dryRun) || !dryRun.every((v) => typeof v === 'string'))
      throw badField('dryRun', 'an array of strings');
    options.dryRun = dryRun;
  }
  return options;
}

/**
 * DeleteOptions from the query, as kube-apiserver reads them when the body is empty
 * (`?dryRun=All&gracePeriodSeconds=0&propagationPolicy=Orphan`).
 */
export function deleteOptionsFromQuery(query: URLSearchParams): DeleteOptions {
  const options: DeleteOptions = {};
  const grace = query.get('gracePeriodSeconds');
  if (grace !== null) {
    if (!/^-?\d+$/.test(grace))
      throw ApiError.badRequest(
        `strconv.ParseInt: parsing ${JSON.stringify(grace)}: invalid syntax`,
      );
    options.gracePeriodSeconds = Number(grace);
  }
  const orphan = query.getAll('orphanDependents');
  if (orphan.length > 0) options.orphanDependents = queryBool(orphan);
  const policy = query.get('propagationPolicy');
  if (policy !== null) options.propagationPolicy = policy as DeletionPropagation;
  const dryRun = query.getAll('dryRun');
  if (dryRun.length > 0) options.dryRun = dryRun;
  return options;
}

/** apimachinery pkg/apis/meta/v1/validation ValidateDeleteOptions; a failure is a 422. */
export function validateDeleteOptions(options: DeleteOptions): void {
  const errs: FieldError[] = [];
  if (options.orphanDependents !== undefined && options.propagationPolicy !== undefined)
    errs.push(
      fieldErrors.invalid(
        'propagationPolicy',
        options.propagationPolicy,
        'orphanDependents and deletionPropagation cannot be both set',
      ),
    );
  if (options.propagationPolicy !== undefined && !PROPAGATIONS.includes(options.propagationPolicy))
    errs.push(
      fieldErrors.notSupported('propagationPolicy', options.propagationPolicy, [
        ...PROPAGATIONS,
        'nil',
      ]),
    );
  errs.push(...validateDryRun('dryRun', options.dryRun ?? []));
  if (errs.length > 0)
    throw ApiError.invalid({ group: 'meta.k8s.io', kind: 'DeleteOptions' }, '', errs);
}

/** ValidateDryRun: `All` is the only value there is. */
export function validateDryRun(field: string, dryRun: readonly string[]): FieldError[] {
  return dryRun.every((v) => v === 'All') ? [] : [fieldErrors.notSupported(field, dryRun, ['All'])];
}

/** Whether the options ask for a dry run. */
export function isDryRunOf(options: { dryRun?: readonly string[] }): boolean {
  return (options.dryRun?.length ?? 0) > 0;
}

/**
 * The propagation these options ask for, or undefined to use the resource's default
 * (registry/generic/registry/store.go deletionFinalizersForGarbageCollection).
 */
export function propagationOf(options: DeleteOptions): DeletionPropagation | undefined {
  if (options.propagationPolicy !== undefined) return options.propagationPolicy;
  if (options.orphanDependents !== undefined)
    return options.orphanDependents ? 'Orphan' : 'Background';
  return undefined;
}
