import { ApiError } from './api-error.js';
import { decodeContinueToken, type ContinueToken } from './continue-token.js';
import { fieldErrorMessage, fieldErrors, type FieldError } from './field-error.js';
import { parseFieldSelector, type FieldSelector } from './field-selector.js';
import type { LabelSelector } from './label-selector.js';
import { parseLabelSelector } from './label-selector-parser.js';
import { tryParseBool } from './parse-bool.js';
import { queryBool } from './query-bool.js';
import type { ResourceDefinition } from './resource-definition.js';
import { parseResourceVersion } from './resource-version.js';

// The query of a LIST or WATCH, decoded and validated in kube-apiserver's order
// (k8s.io/apiserver/pkg/endpoints/handlers/get.go ListResource):
//   1. decode the parameters (400 BadRequest: bad selector, bad number; a boolean cannot be bad);
//   2. ValidateListOptions (k8s.io/apimachinery/pkg/apis/meta/internalversion/validation,
//      422 Invalid on ListOptions.meta.k8s.io);
//   3. field labels against the kind (400 `field label not supported: X`);
//   4. what storage checks (etcd3/store.go GetList): resourceVersion syntax, the continue token,
//      continue with a resourceVersion (400 each).

export type ResourceVersionMatch = 'Exact' | 'NotOlderThan';

/** internalversion.ListOptions; unset and empty parameters are both absent here. */
export interface ListOptions {
  watch: boolean;
  labelSelector: LabelSelector;
  fieldSelector: FieldSelector;
  /** Never "": "" means unset, as in Kubernetes. */
  resourceVersion?: string;
  resourceVersionMatch?: ResourceVersionMatch;
  /** Only when > 0 (0 means no limit). */
  limit?: number;
  /** The raw token (lists only; a watch ignores it). */
  continue?: string;
  /** `continue`, decoded and checked (lists only). */
  continueToken?: ContinueToken;
  allowWatchBookmarks: boolean;
  /** Absent, true or false: the three cases mean different things (KEP-3157). */
  sendInitialEvents?: boolean;
  timeoutSeconds?: number;
  /** Passed through for the handlers. */
  pretty?: boolean;
  fieldManager?: string;
  fieldValidation?: string;
  dryRun?: string[];
}

export type WatchOptions = ListOptions & { watch: true };

export function isWatchOptions(options: ListOptions): options is WatchOptions {
  return options.watch;
}

export interface ParseListOptionsSettings {
  /** Check the field selector against this resource (step 3). */
  definition?: Pick<ResourceDefinition, 'selectableFields'>;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's strconv.ParseInt(s, 10, 64) as the query conversion uses it; huge values clamp to 2^53−1. */
function parseInt64(value: string): number {
  if (!/^[+-]?[0-9]+$/.test(value)) {
    throw ApiError.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  const n = BigInt(value);
  if (n < INT64_MIN || n > INT64_MAX) {
    throw ApiError.badRequest(
      `strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`,
    );
  }
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(n > max ? max : n < -max ? -max : n);
}

/**
 * A non-negative integer parameter. Kubernetes lets a negative limit mean "no limit" and a negative
 * timeout end a watch at once; here both are a 400, so a client bug shows instead of a surprise.
 */
function parseNonNegative(name: string, value: string): number {
  const n = parseInt64(value);
  if (n < 0) {
    throw ApiError.badRequest(
      fieldErrorMessage(fieldErrors.invalid(name, n, 'must be greater than or equal to 0')),
    );
  }
  return n;
}

/** ValidateListOptions (with the WatchList feature on): the 422 rules. */
export function validateListOptions(
  options: Pick<ListOptions, 'watch' | 'resourceVersion' | 'continue' | 'sendInitialEvents'> & {
    resourceVersionMatch?: string;
  },
): FieldError[] {
  const errs: FieldError[] = [];
  const match = options.resourceVersionMatch ?? '';
  const path = 'resourceVersionMatch';
  if (options.watch) {
    if (options.sendInitialEvents !== undefined && match !== 'NotOlderThan') {
      errs.push(
        fieldErrors.forbidden(
          path,
          'sendInitialEvents requires setting resourceVersionMatch to NotOlderThan',
        ),
      );
    }
    if (match !== '') {
      if (options.sendInitialEvents === undefined) {
        errs.push(
          fieldErrors.forbidden(
            path,
            'resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided',
          ),
        );
      }
      if (match !== 'NotOlderThan')
        errs.push(fieldErrors.notSupported(path, match, ['NotOlderThan']));
      if (options.continue) {
        errs.push(
          fieldErrors.forbidden(
            path,
            'resourceVersionMatch is forbidden when continue is provided',
          ),
        );
      }
    }
    return errs;
  }
  if (match !== '') {
    if (!options.resourceVersion) {
      errs.push(
        fieldErrors.forbidden(
          path,
          'resourceVersionMatch is forbidden unless resourceVersion is provided',
        ),
      );
    }
    if (options.continue) {
      errs.push(
        fieldErrors.forbidden(path, 'resourceVersionMatch is forbidden when continue is provided'),
      );
    }
    if (match !== 'Exact' && match !== 'NotOlderThan') {
      errs.push(fieldErrors.notSupported(path, match, ['Exact', 'NotOlderThan', '']));
    }
    if (match === 'Exact' && options.resourceVersion === '0') {
      errs.push(
        fieldErrors.forbidden(
          path,
          'resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        ),
      );
    }
  }
  if (options.sendInitialEvents !== undefined) {
    errs.push(
      fieldErrors.forbidden('sendInitialEvents', 'sendInitialEvents is forbidden for list'),
    );
  }
  return errs;
}

/**
 * Decodes and validates the query of a LIST or WATCH into ListOptions. Failures are ApiErrors:
 * 400 BadRequest for what cannot be decoded, 422 Invalid (`ListOptions.meta.k8s.io "" is
 * invalid: ...`, one cause per rule broken) for forbidden combinations.
 */
export function parseListOptions(
  query: URLSearchParams,
  settings: ParseListOptionsSettings = {},
): ListOptions {
  // 1. Decoding, in the order of the ListOptions fields (the first bad parameter is reported).
  const labelSelector = parseLabelSelector(query.get('labelSelector') ?? '');
  const fieldSelector = parseFieldSelector(query.get('fieldSelector') ?? '');
  const watch = queryBool(query.get('watch'));
  const allowWatchBookmarks = queryBool(query.get('allowWatchBookmarks'));
  const resourceVersion = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  const timeout = query.get('timeoutSeconds');
  const timeoutSeconds = timeout === null ? undefined : parseNonNegative('timeoutSeconds', timeout);
  const limitParam = query.get('limit');
  const limit = limitParam === null ? 0 : parseNonNegative('limit', limitParam);
  const continueParam = query.get('continue') ?? '';
  // A *bool: absent stays unset (Convert_Slice_string_To_Pointer_bool for present values).
  const sendInitialEventsParam = query.get('sendInitialEvents');
  const sendInitialEvents =
    sendInitialEventsParam === null ? undefined : queryBool(sendInitialEventsParam);

  // 2. ValidateListOptions.
  const errs = validateListOptions({
    watch,
    resourceVersion,
    resourceVersionMatch: match,
    continue: continueParam,
    ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
  });
  if (errs.length > 0)
    throw ApiError.invalid({ group: 'meta.k8s.io', kind: 'ListOptions' }, '', errs);

  // 3. Field labels the kind does not know.
  if (settings.definition) fieldSelector.validateFor(settings.definition);

  // 4. What storage checks.
  parseResourceVersion(resourceVersion);
  let continueToken: ContinueToken | undefined;
  if (!watch && continueParam !== '') {
    continueToken = decodeContinueToken(continueParam);
    if (resourceVersion !== '' && resourceVersion !== '0') {
      throw ApiError.badRequest('specifying resource version is not allowed when using continue');
    }
  }

  // `pretty` is no ListOptions field: kube-apiserver's isPrettyPrint reads it with
  // strconv.ParseBool, anything else ignored.
  const pretty = tryParseBool(query.get('pretty') ?? '');
  const fieldManager = query.get('fieldManager');
  const fieldValidation = query.get('fieldValidation');
  const dryRun = query.getAll('dryRun');
  return {
    watch,
    labelSelector,
    fieldSelector,
    ...(resourceVersion !== '' ? { resourceVersion } : {}),
    ...(match !== '' ? { resourceVersionMatch: match as ResourceVersionMatch } : {}),
    ...(limit > 0 ? { limit } : {}),
    ...(!watch && continueParam !== '' ? { continue: continueParam } : {}),
    ...(continueToken ? { continueToken } : {}),
    allowWatchBookmarks,
    ...(sendInitialEvents !== undefined ? { sendInitialEvents } : {}),
    ...(timeoutSeconds !== undefined ? { timeoutSeconds } : {}),
    ...(pretty !== undefined ? { pretty } : {}),
    ...(fieldManager ? { fieldManager } : {}),
    ...(fieldValidation ? { fieldValidation } : {}),
    ...(dryRun.length > 0 ? { dryRun } : {}),
  };
}

/**
 * The query string for `options`, as a client sends it (parseListOptions reads it back). Absent
 * and default values are left out; `LabelSelector.nothing()` cannot be written and is left out.
 */
export function listOptionsToQuery(options: Partial<ListOptions>): URLSearchParams {
  const query = new URLSearchParams();
  const set = (name: string, value: string | number | boolean | undefined): void => {
    if (value !== undefined && value !== '') query.set(name, String(value));
  };
  set('labelSelector', options.labelSelector?.toString());
  set('fieldSelector', options.fieldSelector?.toString());
  if (options.watch) set('watch', true);
  if (options.allowWatchBookmarks) set('allowWatchBookmarks', true);
  set('resourceVersion', options.resourceVersion);
  set('resourceVersionMatch', options.resourceVersionMatch);
  set('timeoutSeconds', options.timeoutSeconds);
  if (options.limit) set('limit', options.limit);
  set('continue', options.continue);
  set('sendInitialEvents', options.sendInitialEvents);
  set('pretty', options.pretty);
  set('fieldManager', options.fieldManager);
  set('fieldValidation', options.fieldValidation);
  for (const value of options.dryRun ?? []) query.append('dryRun', value);
  return query;
}

/** Read from storage at its current revision (a quorum read), or from a cache proven as fresh. */
export interface ConsistentRead {
  mode: 'consistent';
}
/** Any freshness: whatever the cache holds now. */
export interface AnyRead {
  mode: 'any';
}
/** At a revision ≥ resourceVersion: wait (up to 3 s) for the cache to reach it, else 504. */
export interface NotOlderThanRead {
  mode: 'notOlderThan';
  resourceVersion: number;
}
/** Exactly at resourceVersion, from storage; compacted: 410 Expired. */
export interface ExactRead {
  mode: 'exact';
  resourceVersion: number;
}

/** A read that a cache may serve: every semantics but Exact. */
export type CacheableRead = ConsistentRead | AnyRead | NotOlderThanRead;

/**
 * The one reading of a resourceVersion where nothing asks for Exact: "" → consistent, "0" → any,
 * N → not older than N (k8s.io/apiserver/pkg/storage/cacher/delegator.go). A bad value is a 400.
 */
export function classifyRead(resourceVersion: string | undefined): CacheableRead {
  if (resourceVersion === undefined || resourceVersion === '') return { mode: 'consistent' };
  const n = parseResourceVersion(resourceVersion);
  return n === 0 ? { mode: 'any' } : { mode: 'notOlderThan', resourceVersion: n };
}

/**
 * What a LIST asks for, as kube-apiserver serves it ("Semantics for get and list" in the Kubernetes
 * API concepts; k8s.io/apiserver pkg/storage/cacher/cacher.go GetList). A continued list also
 * carries where to start (`continueFrom`) and reads at the token's revision, or at the latest
 * after a compaction.
 */
export type ListSemantics = ConsistentRead | AnyRead | NotOlderThanRead | ExactRead | ContinuedList;

/** A continued LIST: read at the token's revision (exact), or at the latest (rv -1). */
export type ContinuedList = (ConsistentRead | ExactRead) & { continueFrom: ContinueToken };

export function isContinuedList(semantics: ListSemantics): semantics is ContinuedList {
  return 'continueFrom' in semantics;
}

/**
 * Classifies a LIST:
 * - `continue` → the token's revision (exact), or the latest (consistent) for an rv of -1;
 * - resourceVersion unset → consistent;
 * - "0" → any (and `limit` is ignored: one page with everything);
 * - N with resourceVersionMatch=Exact, or legacy N with a limit and no match → exact(N);
 * - N otherwise (NotOlderThan, or no limit) → notOlderThan(N).
 */
export function classifyList(
  options: Pick<
    ListOptions,
    'resourceVersion' | 'resourceVersionMatch' | 'limit' | 'continue' | 'continueToken'
  >,
): ListSemantics {
  const token =
    options.continueToken ?? (options.continue ? decodeContinueToken(options.continue) : undefined);
  if (token) {
    return token.resourceVersion > 0
      ? { mode: 'exact', resourceVersion: token.resourceVersion, continueFrom: token }
      : { mode: 'consistent', continueFrom: token };
  }
  const read = classifyRead(options.resourceVersion);
  if (read.mode !== 'notOlderThan') return read;
  // cacher.go shouldDelegateList: Exact, or the legacy exact match (a limit and no match).
  if (options.resourceVersionMatch === 'Exact') return { ...read, mode: 'exact' };
  if (options.resourceVersionMatch === undefined && (options.limit ?? 0) > 0) {
    return { ...read, mode: 'exact' };
  }
  return read;
}

/** Changes only, from the revision storage has now (consistent) or the cache has now (any). */
export interface AfterRevision {
  mode: 'after';
  resourceVersion: number;
}

/** What a WATCH asks for ("Semantics for watch" in the Kubernetes API concepts, KEP-3157). */
export type WatchSemantics =
  | {
      /** A synthetic ADDED for every object, sorted by key, then changes. */
      initialEvents: true;
      read: CacheableRead;
      /** Send the BOOKMARK annotated `k8s.io/initial-events-end` after the initial events. */
      initialEventsEndBookmark: boolean;
    }
  | {
      initialEvents: false;
      /** Changes with a revision above this one. */
      from: ConsistentRead | AnyRead | AfterRevision;
    };

/**
 * Classifies a WATCH:
 * - legacy (sendInitialEvents absent): "" → initial events from a consistent read, "0" → from
 *   any freshness, N → changes after N;
 * - sendInitialEvents=true (NotOlderThan): initial events at "" consistent / "0" any / N not older
 *   than N, then an initial-events-end bookmark if allowWatchBookmarks;
 * - sendInitialEvents=false (NotOlderThan): no initial events; changes after "" storage's current
 *   revision / "0" the cache's / N.
 */
export function classifyWatch(
  options: Pick<ListOptions, 'resourceVersion' | 'sendInitialEvents'> &
    Partial<Pick<ListOptions, 'allowWatchBookmarks'>>,
): WatchSemantics {
  const read = classifyRead(options.resourceVersion);
  const from: ConsistentRead | AnyRead | AfterRevision =
    read.mode === 'notOlderThan' ? { mode: 'after', resourceVersion: read.resourceVersion } : read;
  if (options.sendInitialEvents === undefined) {
    return read.mode === 'notOlderThan'
      ? { initialEvents: false, from }
      : { initialEvents: true, read, initialEventsEndBookmark: false };
  }
  if (options.sendInitialEvents) {
    return {
      initialEvents: true,
      read,
      initialEventsEndBookmark: options.allowWatchBookmarks === true,
    };
  }
  return { initialEvents: false, from };
}

/** metav1.GetOptions: a GET's resourceVersion, never "" ("" means unset). */
export interface GetOptions {
  resourceVersion?: string;
}

/** Decodes a GET's query; a bad resourceVersion is a 400, as the storage layer words it. */
export function parseGetOptions(query: URLSearchParams): GetOptions {
  const resourceVersion = query.get('resourceVersion') ?? '';
  parseResourceVersion(resourceVersion);
  return resourceVersion === '' ? {} : { resourceVersion };
}

/**
 * Classifies a GET (delegator.go Get): "" → consistent (storage), "0" → any, N → not older than
 * N. A GET has no resourceVersionMatch: it is never Exact.
 */
export function classifyGet(options: GetOptions): CacheableRead {
  return classifyRead(options.resourceVersion);
}
