import { apiVersionOf, parseListOptions } from '@listwatch/api';
import {
  EncodedEvent,
  negotiateWatch,
  protobufTypeOf,
  parseIncludeObject,
  type EventView,
  type NegotiatedWatchCodec,
} from '@listwatch/codec';
import type { Attributes } from '../authorization/attributes.js';
import type { RequestInfo } from '../request/request-info.js';
import type { ResourceEntry } from '../registry/resource-registry.js';
import type { WatchInterface } from '../registry/rest/rest.js';
import type { ServerContext } from '../server-context.js';

/** What a watch stream is written as. */
export type WatchCodec = Pick<NegotiatedWatchCodec, 'contentType' | 'encoding' | 'format'>;

type Encodings = (event: { encoded: EncodedEvent }) => EncodedEvent;

/**
 * An opened watch and how its events are to be written. It lives as long as the watch, one per
 * idle watch: fields and prototype methods, no closures of its own.
 */
export class OpenWatch {
  constructor(
    readonly watcher: WatchInterface,
    readonly codec: WatchCodec,
    /** The views (Table, metadata only) of the first event and of the rest; none for objects. */
    private readonly views: readonly [EventView, EventView] | undefined,
    /**
     * The event's encodings to write from: the one shared by every watcher, or (watchEncodeOnce
     * off, a benchmark's baseline) a fresh one of this watcher's own.
     */
    readonly encodedOf: Encodings,
  ) {}

  /** The view of each event; `first` is for the first event of the stream. */
  view(first: boolean): EventView | undefined {
    return this.views?.[first ? 0 : 1];
  }
}

const shared: Encodings = (event) => event.encoded;
const own: Encodings = (event) => new EncodedEvent(event.encoded.event);

/**
 * Opens a WATCH (shared by every transport): validates the query, negotiates the encoding, picks
 * the timeout (`timeoutSeconds`, else `--min-request-timeout` × (1 + rand) to spread re-watches,
 * kubernetes#6770) and asks the resource's Store. Errors here are plain HTTP errors; after this
 * point they travel as ERROR events.
 */
export async function openWatch(
  server: ServerContext,
  info: RequestInfo,
  entry: ResourceEntry,
  query: URLSearchParams,
  accept: string | undefined,
  attributes: Attributes,
): Promise<OpenWatch> {
  const { definition, store } = entry;
  const options = parseListOptions(query, { definition });
  const codec = negotiateWatch(accept, {
    table: true,
    protobuf: protobufTypeOf(apiVersionOf(definition), definition.kind) !== undefined,
  });
  const includeObject =
    codec.as === 'Table' ? parseIncludeObject(query.get('includeObject')) : undefined;
  const timeoutMs =
    options.timeoutSeconds !== undefined
      ? options.timeoutSeconds * 1000
      : Math.round(server.minRequestTimeoutSeconds * (1 + Math.random()) * 1000);
  const namespace = definition.namespaced ? info.namespace : undefined;
  // The typed options go down as they are; the watch cache classifies them (classifyWatch).
  const watcher = await store.watch(
    {
      namespace,
      attributes,
      authorizer: server.authorizer,
      authenticator: server.authenticator,
      logger: server.logger,
      inputFailed: () => undefined,
    },
    {
      options,
      ...(info.legacyWatch && info.name !== undefined ? { name: info.name } : {}),
      timeoutMs,
    },
  );
  const version = codec.version ?? 'v1';
  const table = (columns: boolean): EventView => ({
    as: 'Table',
    definition,
    includeObject: includeObject ?? 'Metadata',
    version,
    columns,
  });
  const metadata: EventView = { as: 'PartialObjectMetadata', version };
  const views: readonly [EventView, EventView] | undefined =
    codec.as === 'Table'
      ? [table(true), table(false)]
      : codec.as === 'PartialObjectMetadata'
        ? [metadata, metadata]
        : undefined;
  // Only what the stream needs is kept for its life, not the whole negotiation.
  const { contentType, encoding, format } = codec;
  return new OpenWatch(
    watcher,
    { contentType, encoding, format },
    views,
    server.watchEncodeOnce ? shared : own,
  );
}
