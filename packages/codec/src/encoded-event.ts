import type { KubeObject, Status, WatchEvent } from '@listwatch/api';
import type { Encoding } from './encoding.js';
import { encodeWatchEvent } from './framing/encoder.js';
import { formatKey, resolveFormat, type StreamFormat } from './framing/format.js';
import {
  webSocketFormatOf,
  webSocketMessageOf,
  type WebSocketMessage,
} from './framing/websocket.js';
import {
  asPartialObjectMetadata,
  type MetaVersion,
  type PartialObjectMetadata,
} from './partial-object-metadata.js';
import {
  tableWatchEvent,
  type IncludeObjectPolicy,
  type TableSource,
  type TableWatchEvent,
} from './table.js';

/** A transformed form of an event that a watcher negotiated (`as=Table`, `as=PartialObjectMetadata`). */
export type EventView =
  | { as: 'PartialObjectMetadata'; version?: MetaVersion }
  | {
      as: 'Table';
      definition: TableSource;
      includeObject?: IncludeObjectPolicy;
      version?: MetaVersion;
      /** Carry column definitions: only the first event of each watch does. */
      columns?: boolean;
      /** Clock for age cells (default: now). */
      now?: number;
    };

export type PartialObjectMetadataWatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: PartialObjectMetadata }
  | { type: 'ERROR'; object: Status };

export type ViewedWatchEvent = WatchEvent | TableWatchEvent | PartialObjectMetadataWatchEvent;

/**
 * A watch event that is encoded once and shared by every watcher, like kube-apiserver's
 * cachingObject (apiserver pkg/storage/cacher/caching_object.go): the framed bytes for each
 * (encoding, framing, view) are computed on first use and the same Uint8Array is returned to
 * every caller after that. Never mutate the returned bytes.
 *
 * Not cached: BOOKMARK events (built per watcher, sent once) and the first Table event of a watch
 * (the one carrying column definitions, which depends on the watcher's state). Table rows without
 * columns are cached; their age cells are computed at first encoding, as in Kubernetes.
 */
export class EncodedEvent<T extends KubeObject = KubeObject> {
  // Fast paths for the two default watch framings, without views.
  private json: Uint8Array | undefined;
  private cbor: Uint8Array | undefined;
  private cache: Map<string, Uint8Array> | undefined;

  constructor(readonly event: WatchEvent<T>) {}

  get type(): WatchEvent['type'] {
    return this.event.type;
  }

  /** The framed bytes of this event in `format` (an encoding means its watch framing). */
  bytes(format: StreamFormat | Encoding, view?: EventView): Uint8Array {
    const resolved = resolveFormat(format);
    if (this.event.type === 'BOOKMARK' || (view?.as === 'Table' && view.columns)) {
      return encodeWatchEvent(this.viewEvent(view), resolved);
    }
    if (!view) {
      if (resolved.framing === 'newline')
        return (this.json ??= encodeWatchEvent(this.event, resolved));
      if (resolved.framing === 'cbor-sequence') {
        return (this.cbor ??= encodeWatchEvent(this.event, resolved));
      }
    }
    const key = cacheKey(resolved, view);
    const cache = (this.cache ??= new Map<string, Uint8Array>());
    let bytes = cache.get(key);
    if (!bytes) {
      bytes = encodeWatchEvent(this.viewEvent(view), resolved);
      cache.set(key, bytes);
    }
    return bytes;
  }

  /** The payload of one WebSocket message carrying this event (shares the stream bytes cache). */
  webSocketMessage(encoding: Encoding, view?: EventView): WebSocketMessage {
    return webSocketMessageOf(this.bytes(webSocketFormatOf(encoding), view), encoding);
  }

  /** The event object a view produces (the Table form, the metadata-only form, or itself). */
  viewEvent(view?: EventView): ViewedWatchEvent {
    const event = this.event as WatchEvent;
    if (!view || event.type === 'ERROR') return event;
    if (view.as === 'PartialObjectMetadata') {
      return { type: event.type, object: asPartialObjectMetadata(event.object, view.version) };
    }
    return tableWatchEvent(view.definition, event, {
      includeObject: view.includeObject ?? 'Metadata',
      version: view.version ?? 'v1',
      noHeaders: !view.columns,
      ...(view.now !== undefined ? { now: view.now } : {}),
    });
  }

  /** The Table form of the event; `columns` for the first event of a watch. */
  tableEvent(
    definition: TableSource,
    options: {
      includeObject?: IncludeObjectPolicy;
      version?: MetaVersion;
      columns?: boolean;
      now?: number;
    } = {},
  ): TableWatchEvent {
    return this.viewEvent({ as: 'Table', definition, ...options }) as TableWatchEvent;
  }
}

function cacheKey(format: StreamFormat, view: EventView | undefined): string {
  const base = formatKey(format);
  if (!view) return base;
  if (view.as === 'PartialObjectMetadata') return `${base}/meta/${view.version ?? 'v1'}`;
  return `${base}/table/${view.includeObject ?? 'Metadata'}/${view.version ?? 'v1'}`;
}
