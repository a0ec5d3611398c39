import { apiVersionOf, parseListOptions } from '@listwatch/api';
import {
  EncodedEvent,
  negotiateWatch,
  protobufTypeOf,
  parseIncludeObject,
  type EventView,
  type NegotiatedWatchCodec,
} from '@listwatch/codec';
import type { CacheWatcher } from '@listwatch/storage';
import type { RequestInfo } from '../registry/request-info.js';
import type { ResourceEntry } from '../registry/resource-registry.js';
import type { ServerContext } from '../server-context.js';
import { pinnedName, predicateOf } from './selectors.js';

/** An opened watch and how its events are to be written. */
export interface OpenWatch {
  watcher: CacheWatcher;
  codec: NegotiatedWatchCodec;
  /** The view of each event (Table, metadata only); `first` is for the first event of the stream. */
  view(first: boolean): EventView | undefined;
  /**
   * The event's encodings to write from: the one shared by every watcher, or (watchEncodeOnce
   * off, a benchmark's baseline) a fresh one of this watcher's own.
   */
  encodedOf(event: { encoded: EncodedEvent }): EncodedEvent;
}

const shared = (event: { encoded: EncodedEvent }): EncodedEvent => event.encoded;
const own = (event: { encoded: EncodedEvent }): EncodedEvent =>
  new EncodedEvent(event.encoded.event);

/**
 * Opens a WATCH (shared by every transport): validates the query, negotiates the encoding, picks
 * the timeout (`timeoutSeconds`, else `--min-request-timeout` × (1 + rand) to spread re-watches,
 * kubernetes#6770) and asks the watch cache. Errors here are plain HTTP errors; after this point
 * they travel as ERROR events.
 */
export async function openWatch(
  server: ServerContext,
  info: RequestInfo,
  entry: ResourceEntry,
  query: URLSearchParams,
  accept: string | undefined,
): Promise<OpenWatch> {
  const { definition, source } = entry;
  const options = parseListOptions(query, { definition });
  const codec = negotiateWatch(accept, {
    table: true,
    protobuf: protobufTypeOf(apiVersionOf(definition), definition.kind) !== undefined,
  });
  const includeObject =
    codec.as === 'Table' ? parseIncludeObject(query.get('includeObject')) : undefined;
  const predicate = predicateOf(options);
  const name = pinnedName(predicate, info.legacyWatch ? info.name : undefined);
  const timeoutMs =
    options.timeoutSeconds !== undefined
      ? options.timeoutSeconds * 1000
      : Math.round(server.minRequestTimeoutSeconds * (1 + Math.random()) * 1000);
  const namespace = definition.namespaced ? info.namespace : undefined;
  // The typed options go down as they are; the source classifies them (classifyWatch).
  const watcher = await source.watch({
    ...options,
    ...(namespace !== undefined ? { namespace } : {}),
    ...(name !== undefined ? { name } : {}),
    predicate,
    timeoutMs,
  });
  const version = codec.version ?? 'v1';
  return {
    watcher,
    codec,
    encodedOf: server.watchEncodeOnce ? shared : own,
    view: (first) =>
      codec.as === 'Table'
        ? {
            as: 'Table',
            definition,
            includeObject: includeObject ?? 'Metadata',
            version,
            columns: first,
          }
        : codec.as === 'PartialObjectMetadata'
          ? { as: 'PartialObjectMetadata', version }
          : undefined,
  };
}
