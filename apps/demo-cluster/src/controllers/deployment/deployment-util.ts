import { metaV1Now, semanticEqual, type KubeObject } from '@listwatch/api';
import type { Deployment, DeploymentCondition, PodTemplate, ReplicaSet } from '../objects.js';

// kubernetes pkg/controller/deployment/util/deployment_util.go and the parts of
// pkg/controller/controller_utils.go the deployment controller uses, on plain objects.

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
/** apps.DefaultDeploymentUniqueLabelKey. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';
const DEPRECATED_ROLLBACK_TO = 'deprecated.deployment.rollback.to';
/** maxRevHistoryLengthInChars. */
const MAX_REVISION_HISTORY_CHARS = 2000;
const MAX_INT32 = 2147483647;

// Condition types and reasons (deployment_util.go).
export const PROGRESSING = 'Progressing';
export const AVAILABLE = 'Available';
export const REPLICA_FAILURE = 'ReplicaFailure';
export const NEW_RS_AVAILABLE_REASON = 'NewReplicaSetAvailable';
export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';
export const REPLICA_SET_UPDATED_REASON = 'ReplicaSetUpdated';
export const NEW_REPLICA_SET_REASON = 'NewReplicaSetCreated';
export const FOUND_NEW_RS_REASON = 'FoundNewReplicaSet';
export const FAILED_RS_CREATE_REASON = 'ReplicaSetCreateError';
export const MINIMUM_REPLICAS_AVAILABLE = 'MinimumReplicasAvailable';
export const MINIMUM_REPLICAS_UNAVAILABLE = 'MinimumReplicasUnavailable';
export const PAUSED_DEPLOY_REASON = 'DeploymentPaused';
export const RESUMED_DEPLOY_REASON = 'DeploymentResumed';

/** A Deployment's spec with apps/v1 SetDefaults_Deployment applied where fields are missing. */
export interface DeploymentSpecDefaults {
  replicas: number;
  strategyType: 'RollingUpdate' | 'Recreate';
  maxSurge: number | string;
  maxUnavailable: number | string;
  /** Undefined: no limit (math.MaxInt32 in kube). */
  revisionHistoryLimit: number | undefined;
  /** Undefined: no deadline. */
  progressDeadlineSeconds: number | undefined;
  minReadySeconds: number;
  paused: boolean;
}

/**
 * What the controller reads, defaulted as apps/v1 defaulting would have stored it (replicas 1,
 * RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600): an apiserver
 * that has not defaulted the object is read the same way.
 */
export function specOf(d: Deployment): DeploymentSpecDefaults {
  const spec = d.spec ?? {};
  const strategyType = spec.strategy?.type === 'Recreate' ? 'Recreate' : 'RollingUpdate';
  const rolling = spec.strategy?.rollingUpdate;
  const limit = spec.revisionHistoryLimit ?? 10;
  const deadline = spec.progressDeadlineSeconds ?? 600;
  return {
    replicas: spec.replicas ?? 1,
    strategyType,
    maxSurge: rolling?.maxSurge ?? '25%',
    maxUnavailable: rolling?.maxUnavailable ?? '25%',
    revisionHistoryLimit: limit === MAX_INT32 ? undefined : limit,
    progressDeadlineSeconds: deadline === MAX_INT32 ? undefined : deadline,
    minReadySeconds: spec.minReadySeconds ?? 0,
    paused: spec.paused ?? false,
  };
}

/**
 * intstr.GetScaledValueFromIntOrPercent: an int as is, "N%" of total rounded up or down.
 * Anything else is an error (validation refuses it before it is stored).
 */
export function scaledValue(value: number | string, total: number, roundUp: boolean): number {
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) throw new Error(`invalid value for IntOrString: invalid value "${value}"`);
  const scaled = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(scaled) : Math.floor(scaled);
}

/** ResolveFenceposts: maxSurge and maxUnavailable in pods; never both zero. */
export function resolveFenceposts(
  maxSurge: number | string,
  maxUnavailable: number | string,
  desired: number,
): { surge: number; unavailable: number } {
  const surge = scaledValue(maxSurge, desired, true);
  let unavailable = scaledValue(maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  const spec = specOf(d);
  if (spec.strategyType !== 'RollingUpdate') return 0;
  return resolveFenceposts(spec.maxSurge, spec.maxUnavailable, spec.replicas).surge;
}

export function maxUnavailable(d: Deployment): number {
  const spec = specOf(d);
  if (spec.strategyType !== 'RollingUpdate' || spec.replicas === 0) return 0;
  const { unavailable } = resolveFenceposts(spec.maxSurge, spec.maxUnavailable, spec.replicas);
  return Math.min(unavailable, spec.replicas);
}

// --- the pod-template hash (controller_utils.go ComputeHash) ---

/** FNV-1a, 32 bits, over UTF-8 bytes. */
export function fnv32a(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The alphabet of k8s.io/apimachinery/pkg/util/rand: no vowels, no look-alikes. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * rand.SafeEncodeString: each character (rune) mapped into ALPHANUMS, so no bad words can form.
 * Only ever given the decimal digits of a hash.
 */
export function safeEncodeString(s: string): string {
  let out = '';
  for (const ch of s) out += ALPHANUMS[(ch.codePointAt(0) ?? 0) % ALPHANUMS.length];
  return out;
}

/** JSON with map keys sorted: one text for one template, whatever the key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * ComputeHash: FNV-32a of the template, then of collisionCount as 8 little-endian bytes when
 * set, the decimal sum safe-encoded. Kube hashes Go's spew rendering of the typed struct; here
 * the template's canonical JSON is hashed, so the value is as stable and collision-handled, and
 * reads alike (at most 10 characters of 456789bcdf), but its digits differ from a kube cluster's.
 * Kube's own digits change between releases (each new PodSpec field changes spew's text), which
 * is why FindNewReplicaSet matches by EqualIgnoreHash, not by name.
 */
export function computeHash(template: PodTemplate, collisionCount: number | undefined): string {
  let hash = fnv32a(Buffer.from(canonicalJson(template), 'utf8'));
  if (collisionCount !== undefined) {
    const bytes = Buffer.alloc(8);
    bytes.writeUInt32LE(collisionCount >>> 0, 0);
    hash = fnv32a(bytes, hash);
  }
  return safeEncodeString(String(hash));
}

// --- comparing templates ---

function withoutHashLabel(template: PodTemplate | undefined): PodTemplate {
  const copy = structuredClone(template ?? {});
  if (copy.metadata?.labels) delete copy.metadata.labels[POD_TEMPLATE_HASH_LABEL];
  return copy;
}

/** EqualIgnoreHash: the templates are equal but for the pod-template-hash label. */
export function equalIgnoreHash(a: PodTemplate | undefined, b: PodTemplate | undefined): boolean {
  return semanticEqual(withoutHashLabel(a), withoutHashLabel(b));
}

// --- ReplicaSet lists ---

export function replicasOf(rs: ReplicaSet | undefined): number {
  return rs?.spec?.replicas ?? 1;
}

function created(o: KubeObject): string {
  return o.metadata.creationTimestamp ?? '';
}

/** ReplicaSetsByCreationTimestamp: older first, then by name. */
export function byCreation(a: KubeObject, b: KubeObject): number {
  if (created(a) !== created(b)) return created(a) < created(b) ? -1 : 1;
  const an = a.metadata.name ?? '';
  const bn = b.metadata.name ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** ReplicaSetsBySizeOlder: larger first, older first among equals. */
export function bySizeOlder(a: ReplicaSet, b: ReplicaSet): number {
  if (replicasOf(a) === replicasOf(b)) return byCreation(a, b);
  return replicasOf(b) - replicasOf(a);
}

/** ReplicaSetsBySizeNewer: larger first, newer first among equals. */
export function bySizeNewer(a: ReplicaSet, b: ReplicaSet): number {
  if (replicasOf(a) === replicasOf(b)) return byCreation(b, a);
  return replicasOf(b) - replicasOf(a);
}

/** The revision annotation as a number; undefined when absent or not a number (Revision). */
export function revisionOf(obj: KubeObject): number | undefined {
  const text = obj.metadata.annotations?.[REVISION_ANNOTATION];
  if (text === undefined || !/^-?\d+$/.test(text)) return undefined;
  return Number(text);
}

/** ReplicaSetsByRevision: lower revision first, then older. */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  const ra = revisionOf(a) ?? 0;
  const rb = revisionOf(b) ?? 0;
  return ra === rb ? byCreation(a, b) : ra - rb;
}

export function maxRevision(rss: readonly ReplicaSet[]): number {
  let max = 0;
  for (const rs of rss) max = Math.max(max, revisionOf(rs) ?? 0);
  return max;
}

/** FilterActiveReplicaSets: those with pods wanted. */
export function activeReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== undefined && replicasOf(rs) > 0);
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's. */
export function findNewReplicaSet(
  d: Deployment,
  rss: readonly ReplicaSet[],
): ReplicaSet | undefined {
  return [...rss]
    .sort(byCreation)
    .find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** FindOldReplicaSets: every other one. */
export function findOldReplicaSets(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet[] {
  const current = findNewReplicaSet(d, rss);
  return rss.filter((rs) => rs !== current);
}

/** FindActiveOrLatest: the one active ReplicaSet, or the newest when none is; none with several. */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = activeReplicaSets([...newestFirst, newRS]);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}

const sum = (rss: readonly (ReplicaSet | undefined)[], f: (rs: ReplicaSet) => number) =>
  rss.reduce((total, rs) => total + (rs ? f(rs) : 0), 0);

/** GetReplicaCountForReplicaSets: spec.replicas summed. */
export const specReplicas = (rss: readonly (ReplicaSet | undefined)[]) => sum(rss, replicasOf);
/** GetActualReplicaCountForReplicaSets: status.replicas summed. */
export const actualReplicas = (rss: readonly (ReplicaSet | undefined)[]) =>
  sum(rss, (rs) => rs.status?.replicas ?? 0);
export const readyReplicas = (rss: readonly (ReplicaSet | undefined)[]) =>
  sum(rss, (rs) => rs.status?.readyReplicas ?? 0);
export const availableReplicas = (rss: readonly (ReplicaSet | undefined)[]) =>
  sum(rss, (rs) => rs.status?.availableReplicas ?? 0);

/** IsSaturated: the new ReplicaSet has all the Deployment's replicas, all available. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (!rs) return false;
  const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
  if (desired === undefined || !/^\d+$/.test(desired)) return false;
  const replicas = specOf(d).replicas;
  return (
    replicasOf(rs) === replicas &&
    Number(desired) === replicas &&
    (rs.status?.availableReplicas ?? 0) === replicas
  );
}

/** NewRSNewReplicas: how many pods the new ReplicaSet may have now. */
export function newRSNewReplicas(
  d: Deployment,
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet,
): number {
  const spec = specOf(d);
  if (spec.strategyType === 'Recreate') return spec.replicas;
  const surge = scaledValue(spec.maxSurge, spec.replicas, true);
  const current = specReplicas(allRSs);
  const maxTotal = spec.replicas + surge;
  if (current >= maxTotal) return replicasOf(newRS);
  const scaleUp = Math.min(maxTotal - current, spec.replicas - replicasOf(newRS));
  return replicasOf(newRS) + scaleUp;
}

/** integer.RoundToInt32: math.Round, halves away from zero. */
function roundHalfAway(x: number): number {
  return Math.sign(x) * Math.round(Math.abs(x));
}

/** GetProportion: this ReplicaSet's share of a scaling of the whole Deployment. */
export function getProportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const replicas = specOf(d).replicas;
  if (replicas === 0) return -replicasOf(rs);
  const maxReplicas = replicas + maxSurge(d);
  const annotated = rs.metadata.annotations?.[MAX_REPLICAS_ANNOTATION];
  let before = annotated !== undefined && /^\d+$/.test(annotated) ? Number(annotated) : 0;
  if (before === 0) before = d.status?.replicas ?? 0;
  if (before === 0) return 0;
  return roundHalfAway((replicasOf(rs) * maxReplicas) / before) - replicasOf(rs);
}

// --- annotations ---

const ANNOTATIONS_TO_SKIP = new Set([
  LAST_APPLIED_ANNOTATION,
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  DEPRECATED_ROLLBACK_TO,
]);

/** The annotations kubectl rollout undo keeps from the Deployment rather than the ReplicaSet. */
export function skipCopyAnnotation(key: string): boolean {
  return ANNOTATIONS_TO_SKIP.has(key);
}

/** ReplicasAnnotationsNeedUpdate. */
export function replicasAnnotationsNeedUpdate(
  rs: ReplicaSet,
  desired: number,
  max: number,
): boolean {
  const annotations = rs.metadata.annotations ?? {};
  return (
    annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired) ||
    annotations[MAX_REPLICAS_ANNOTATION] !== String(max)
  );
}

/** SetReplicasAnnotations, in place; whether anything changed. */
export function setReplicasAnnotations(rs: ReplicaSet, desired: number, max: number): boolean {
  const changed = replicasAnnotationsNeedUpdate(rs, desired, max);
  rs.metadata.annotations = {
    ...rs.metadata.annotations,
    [DESIRED_REPLICAS_ANNOTATION]: String(desired),
    [MAX_REPLICAS_ANNOTATION]: String(max),
  };
  return changed;
}

/**
 * SetNewReplicaSetAnnotations, in place: the Deployment's own annotations copied, the revision
 * raised to `newRevision` (a rollback keeps the old one in revision-history), and on creation
 * the replicas annotations. Whether anything changed.
 */
export function setNewReplicaSetAnnotations(
  d: Deployment,
  rs: ReplicaSet,
  newRevision: number,
  exists: boolean,
): boolean {
  const annotations = { ...rs.metadata.annotations };
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (skipCopyAnnotation(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  const oldText = annotations[REVISION_ANNOTATION];
  let oldRevision = 0;
  if (oldText !== undefined && oldText !== '') {
    if (!/^-?\d+$/.test(oldText)) {
      rs.metadata.annotations = annotations;
      return false;
    }
    oldRevision = Number(oldText);
  }
  if (oldRevision < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (oldText !== undefined) {
      // A rollback to this ReplicaSet: its earlier revisions are kept, within 2000 characters.
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      const old = history.split(',');
      if (old[0] === '') annotations[REVISION_HISTORY_ANNOTATION] = oldText;
      else {
        let total = history.length + oldText.length + 1;
        let start = 0;
        while (total > MAX_REVISION_HISTORY_CHARS && start < old.length) {
          total -= (old[start]?.length ?? 0) + 1;
          start++;
        }
        if (total <= MAX_REVISION_HISTORY_CHARS)
          annotations[REVISION_HISTORY_ANNOTATION] = [...old.slice(start), oldText].join(',');
      }
    }
  }
  rs.metadata.annotations = annotations;
  if (!exists) {
    const replicas = specOf(d).replicas;
    if (setReplicasAnnotations(rs, replicas, replicas + maxSurge(d))) changed = true;
  }
  return changed;
}

// --- status and conditions ---

export { metaV1Now as now } from '@listwatch/api';

export function newCondition(
  type: string,
  status: DeploymentCondition['status'],
  reason: string,
  message: string,
): DeploymentCondition {
  const time = metaV1Now();
  return { type, status, lastUpdateTime: time, lastTransitionTime: time, reason, message };
}

export function getCondition(
  status: Deployment['status'],
  type: string,
): DeploymentCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

/** SetDeploymentCondition: same status and reason is no change; same status keeps the transition time. */
export function setCondition(
  status: NonNullable<Deployment['status']>,
  condition: DeploymentCondition,
): void {
  const current = getCondition(status, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return;
  const next = { ...condition };
  if (current && current.status === condition.status && current.lastTransitionTime)
    next.lastTransitionTime = current.lastTransitionTime;
  status.conditions = [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next];
}

export function removeCondition(status: NonNullable<Deployment['status']>, type: string): void {
  if (!status.conditions) return;
  status.conditions = status.conditions.filter((c) => c.type !== type);
  if (status.conditions.length === 0) delete status.conditions;
}

/** sync.go calculateStatus: counts from the ReplicaSets, and the Available condition. */
export function calculateStatus(
  allRSs: readonly (ReplicaSet | undefined)[],
  newRS: ReplicaSet | undefined,
  d: Deployment,
): NonNullable<Deployment['status']> {
  const available = availableReplicas(allRSs);
  const unavailable = Math.max(0, specReplicas(allRSs) - available);
  const counts = {
    observedGeneration: d.metadata.generation ?? 0,
    replicas: actualReplicas(allRSs),
    updatedReplicas: actualReplicas([newRS]),
    readyReplicas: readyReplicas(allRSs),
    availableReplicas: available,
    unavailableReplicas: unavailable,
  };
  // Zero counts are omitted on the wire (omitempty), as kube writes them.
  const status: NonNullable<Deployment['status']> = Object.fromEntries(
    Object.entries(counts).filter(([, v]) => v !== 0),
  );
  if (d.status?.collisionCount !== undefined) status.collisionCount = d.status.collisionCount;
  if (d.status?.conditions) status.conditions = d.status.conditions.map((c) => ({ ...c }));
  if (available >= specOf(d).replicas - maxUnavailable(d))
    setCondition(
      status,
      newCondition(
        AVAILABLE,
        'True',
        MINIMUM_REPLICAS_AVAILABLE,
        'Deployment has minimum availability.',
      ),
    );
  else
    setCondition(
      status,
      newCondition(
        AVAILABLE,
        'False',
        MINIMUM_REPLICAS_UNAVAILABLE,
        'Deployment does not have minimum availability.',
      ),
    );
  return status;
}

/** DeploymentComplete. */
export function deploymentComplete(
  d: Deployment,
  status: NonNullable<Deployment['status']>,
): boolean {
  const replicas = specOf(d).replicas;
  return (
    (status.updatedReplicas ?? 0) === replicas &&
    (status.replicas ?? 0) === replicas &&
    (status.availableReplicas ?? 0) === replicas &&
    (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
  );
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available pods. */
export function deploymentProgressing(
  d: Deployment,
  status: NonNullable<Deployment['status']>,
): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (
    (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) ||
    newOld < oldOld ||
    (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0)
  );
}

/** DeploymentTimedOut: no progress reported for progressDeadlineSeconds. */
export function deploymentTimedOut(
  d: Deployment,
  status: NonNullable<Deployment['status']>,
  nowMs: number,
): boolean {
  const deadline = specOf(d).progressDeadlineSeconds;
  if (deadline === undefined) return false;
  const condition = getCondition(status, PROGRESSING);
  if (!condition) return false;
  if (condition.reason === NEW_RS_AVAILABLE_REASON) return false;
  if (condition.reason === TIMED_OUT_REASON) return true;
  const from = Date.parse(condition.lastUpdateTime ?? '');
  return Number.isFinite(from) && from + deadline * 1000 < nowMs;
}
