import { isRecord, type KubeObject, type Status, type WatchEvent } from '@listwatch/api';
import { CodecError } from './codec-error.js';

/**
 * Checks a decoded value is a watch event (metav1.WatchEvent): a known type and an object. Returns
 * a fresh `{type, object}`; anything else is a CodecError at the event's offset.
 */
export function toWatchEvent(value: unknown, offset: number): WatchEvent {
  if (!isRecord(value)) {
    throw new CodecError(`watch event is ${describe(value)}, not an object`, offset);
  }
  const { type, object } = value;
  if (!isRecord(object)) {
    throw new CodecError(`watch event object is ${describe(object)}, not an object`, offset);
  }
  switch (type) {
    case 'ADDED':
    case 'MODIFIED':
    case 'DELETED':
    case 'BOOKMARK':
      return { type, object: object as KubeObject };
    case 'ERROR':
      return { type, object: object as unknown as Status };
    default:
      throw new CodecError(
        `unknown watch event type ${JSON.stringify(type) ?? 'undefined'}`,
        offset,
      );
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
