import {
  fieldErrors,
  isDNS1123Subdomain,
  isQualifiedName,
  type FieldError,
  type KubeObject,
} from '@listwatch/api';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type * as eventsv1 from 'kubernetes-types/events/v1.js';
import type { StorageConversion } from '../../generic/converting-storage.js';
import { immutable, kindStrategy } from '../../kind-helpers.js';
import type { TypedObject } from '../../rest/typed-object.js';

// events.k8s.io/v1 Events: one resource with core/v1 Events (kube stores both as the internal
// Event under /registry/events; pkg/registry/core/event/storage), the field mapping of
// pkg/apis/events/v1/conversion.go, and the rules ValidateEventCreate applies to events created
// through events.k8s.io (pkg/apis/core/validation/events.go).

/** A core/v1 Event as decoded (kubernetes-types' core/v1 Event). */
export type Event = TypedObject<corev1.Event>;
/** An events.k8s.io/v1 Event as decoded (kubernetes-types' events/v1 Event). */
export type EventsV1Event = TypedObject<eventsv1.Event>;

/** core/v1 field ⇄ events.k8s.io/v1 field (Convert_v1_Event_To_core_Event and back). */
const RENAMES: readonly (readonly [string, string])[] = [
  ['involvedObject', 'regarding'],
  ['source', 'deprecatedSource'],
  ['message', 'note'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];

function renamed(object: KubeObject, apiVersion: string, from: 0 | 1): KubeObject {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const pair = RENAMES.find((r) => r[from] === key);
    out[pair ? pair[from === 0 ? 1 : 0] : key] = value;
  }
  return { ...(out as KubeObject), apiVersion, kind: 'Event' };
}

/** A core/v1 Event as events.k8s.io/v1 serves it. */
export function eventToEventsV1(event: KubeObject): KubeObject {
  return renamed(event, 'events.k8s.io/v1', 0);
}

/** An events.k8s.io/v1 Event as core/v1 stores it. */
export function eventsV1ToEvent(event: KubeObject): KubeObject {
  return renamed(event, 'v1', 1);
}

export const eventsV1Storage: StorageConversion = {
  toStored: eventsV1ToEvent,
  fromStored: eventToEventsV1,
};

/** ReportingInstanceLengthLimit, ActionLengthLimit, ReasonLengthLimit, NoteLengthLimit. */
const LIMITS = { reportingInstance: 128, action: 128, reason: 128, note: 1024 } as const;

const present = (value: unknown) => value !== undefined && value !== null && value !== '';

/**
 * legacyValidateEvent, on the event in its core/v1 form (kube validates the internal Event, so
 * paths name core fields). An event without an eventTime is an old-style one: only its
 * namespace must agree; a new-style one needs its reporting fields. `reportingField` is how the
 * request's version names reportingController (core/v1: reportingComponent).
 */
function legacyValidateEvent(event: Event, reportingField: string): FieldError[] {
  const errors: FieldError[] = [];
  const involvedNamespace = event.involvedObject?.namespace ?? '';
  const namespace = event.metadata.namespace ?? '';
  const mismatch = () =>
    errors.push(
      fieldErrors.invalid(
        'involvedObject.namespace',
        involvedNamespace,
        'does not match event.namespace',
      ),
    );
  if (!present(event.eventTime)) {
    if (involvedNamespace === '') {
      // An event about a cluster-scoped object lives in "" or, for old clients, "default".
      if (namespace !== '' && namespace !== 'default') mismatch();
    } else if (namespace !== involvedNamespace) mismatch();
  } else {
    if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system')
      mismatch();
    const controller = event.reportingComponent ?? '';
    if (!controller) errors.push(fieldErrors.required(reportingField, ''));
    for (const msg of isQualifiedName(controller))
      errors.push(fieldErrors.invalid(reportingField, controller, msg));
    for (const key of ['reportingInstance', 'action', 'reason'] as const) {
      const text = event[key] ?? '';
      if (!text) errors.push(fieldErrors.required(key, ''));
      if (text.length > LIMITS[key])
        errors.push(fieldErrors.invalid(key, '', `can have at most ${LIMITS[key]} characters`));
    }
    if ((event.message ?? '').length > LIMITS.note)
      errors.push(fieldErrors.invalid('message', '', `can have at most ${LIMITS.note} characters`));
  }
  for (const msg of isDNS1123Subdomain(namespace))
    errors.push(fieldErrors.invalid('namespace', namespace, msg));
  return errors;
}

/** legacyValidateEvent for events.k8s.io/v1 writes. */
function validateEventsV1(event: EventsV1Event): FieldError[] {
  // The core/v1 form of a decoded events.k8s.io/v1 Event is a decoded core/v1 Event.
  return legacyValidateEvent(eventsV1ToEvent(event) as Event, 'reportingController');
}

/**
 * core/v1 Events (pkg/registry/core/event/strategy.go): ValidateEventCreate and
 * ValidateEventUpdate stop at legacyValidateEvent for core/v1, for backwards compatibility.
 */
export const eventStrategy = kindStrategy<Event>({
  validate: (event) => legacyValidateEvent(event, 'reportingComponent'),
});

/** ValidateEventCreate's strict rules for events.k8s.io/v1: a new-style event only. */
function validateEventsV1Create(event: EventsV1Event): FieldError[] {
  const errors: FieldError[] = [];
  if (!present(event.eventTime)) errors.push(fieldErrors.required('eventTime', ''));
  if (event.type !== 'Normal' && event.type !== 'Warning')
    errors.push(fieldErrors.invalid('type', '', `has invalid value: ${event.type ?? ''}`));
  if (present(event.deprecatedFirstTimestamp))
    errors.push(fieldErrors.invalid('firstTimestamp', '', 'needs to be unset'));
  if (present(event.deprecatedLastTimestamp))
    errors.push(fieldErrors.invalid('lastTimestamp', '', 'needs to be unset'));
  if (present(event.deprecatedCount) && event.deprecatedCount !== 0)
    errors.push(fieldErrors.invalid('count', '', 'needs to be unset'));
  const source = event.deprecatedSource;
  if (present(source?.component) || present(source?.host))
    errors.push(fieldErrors.invalid('source', '', 'needs to be unset'));
  return errors;
}

/** ValidateEventUpdate (events.k8s.io/v1): what an event records never changes. */
function validateEventsV1Update(next: EventsV1Event, current: EventsV1Event): FieldError[] {
  const paths: readonly (readonly [keyof EventsV1Event, string])[] = [
    ['regarding', 'involvedObject'],
    ['reason', 'reason'],
    ['type', 'type'],
    ['action', 'action'],
    ['reportingController', 'reportingController'],
    ['reportingInstance', 'reportingInstance'],
    ['eventTime', 'eventTime'],
    ['deprecatedFirstTimestamp', 'firstTimestamp'],
    ['deprecatedLastTimestamp', 'lastTimestamp'],
    ['deprecatedCount', 'count'],
    ['deprecatedSource', 'source'],
  ];
  return paths.flatMap(([key, path]) => immutable(next[key], current[key], path));
}

export const eventsV1Strategy = kindStrategy<EventsV1Event>({
  validate: validateEventsV1,
  validateCreate: validateEventsV1Create,
  validateUpdate: validateEventsV1Update,
  extra: { storage: eventsV1Storage },
});
