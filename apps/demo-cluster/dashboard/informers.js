// The page's informers: one @listwatch/client SharedIndexInformer per resource, as a controller
// keeps them (client-go tools/cache), each a watch-list over a WebSocket (no LIST: a page on
// another origin can open WebSockets to the apiserver, but not read a LIST without CORS).
// Its reflector's observer (setReflectorObserver) shows the machinery: the phase, the last
// synced resourceVersion, resumes and relists, and every watch event for the feed, the initial
// state, bookmarks and 410 Gone included.
import {
  bearerToken,
  isDeletedFinalStateUnknown,
  jsonLineLogger,
  RestClient,
  SharedIndexInformer,
} from './client.js';

export function keyOf(obj) {
  const m = obj.metadata;
  return m.namespace ? `${m.namespace}/${m.name}` : m.name;
}

/**
 * A ListerWatcher whose open watches the page can cut as a network drop would (the break-it
 * panel): the reflector sees its watch end and resumes from its resourceVersion.
 */
function cuttable(lw) {
  const open = new Set();
  return {
    list: (params, signal) => lw.list(params, signal),
    async watch(params, signal) {
      const stream = await lw.watch(params, signal);
      const tracked = {
        close() {
          open.delete(tracked);
          stream.close();
        },
        [Symbol.asyncIterator]: () => stream[Symbol.asyncIterator](),
      };
      open.add(tracked);
      return tracked;
    },
    cut() {
      for (const stream of [...open]) stream.close();
    },
  };
}

/** The client the informers share: WebSocket watches, the page's token if it was given one. */
export function pageClient(server, token) {
  return new RestClient({
    server,
    watchTransport: 'websocket',
    ...(token ? { credentials: bearerToken(token) } : {}),
    // Warnings on the console as warnings: a refused WebSocket while the apiserver is down is
    // the page retrying, which the informers table shows.
    logger: jsonLineLogger({ level: 'warn', name: 'dashboard', write: (l) => console.warn(l) }),
  });
}

export class PageInformer {
  /**
   * @param {RestClient} client
   * @param {{ group: string, version: string, plural: string, namespaced: boolean }} resource
   * @param {{ onEvent: (type: string, obj: object, informer: PageInformer,
   *   how: { initial: boolean, initialEventsEnd?: boolean, relist?: boolean }) => void,
   *   onChange: (key: string) => void, onState: () => void }} options
   */
  constructor(client, resource, options) {
    this.lw = cuttable(client.resource(resource).listerWatcher());
    this.informer = new SharedIndexInformer({
      listerWatcher: this.lw,
      resource: { group: resource.group, resource: resource.plural },
      useWatchList: true,
      // Quicker to come back than a controller's 800 ms to 30 s: someone is looking.
      reflector: { backoff: { initialMs: 250, maxMs: 4000 } },
      logger: client.logger,
    });
    const indexer = this.informer.getIndexer();
    /** The cache, as a Map-like view. */
    this.items = {
      get size() {
        return indexer.listKeys().length;
      },
      keys: () => indexer.listKeys(),
      values: () => indexer.list(),
      get: (key) => indexer.getByKey(key),
      has: (key) => indexer.getByKey(key) !== undefined,
    };
    /** The reflector's phase: watch-list, watching, resuming, relisting, backoff. */
    this.phase = 'watch-list';
    this.resourceVersion = '';
    this.resumes = 0;
    this.relists = 0;
    const { onEvent, onChange, onState } = options;
    this.informer.setReflectorObserver({
      onPhase: (phase) => {
        if (phase === 'resuming') this.resumes++;
        if (phase === 'relisting') this.relists++;
        this.phase = phase;
        onState();
      },
      onWatchEvent: (event, { initialEvents, initialEventsEnd }) =>
        onEvent(event.type, event.object, this, {
          initial: initialEvents && event.type !== 'BOOKMARK',
          initialEventsEnd,
        }),
      onExpired: (err) => onEvent('ERROR', err.status, this, { initial: false }),
      updateResourceVersion: (rv) => {
        this.resourceVersion = rv;
        onState();
      },
    });
    // Errors other than an unreachable apiserver (which the phase shows) go to the feed too.
    this.informer.setWatchErrorHandler((err) => {
      if (err.name !== 'ConnectionError') onEvent('ERROR', err.status, this, { initial: false });
    });
    // The cache changed (after the store did): what to redraw. A relist tells the deletions it
    // missed as tombstones, shown in the feed as a Reflector's Replace tells them.
    this.informer.addEventHandler({
      onAdd: (obj) => onChange(keyOf(obj)),
      onUpdate: (_, obj) => onChange(keyOf(obj)),
      onDelete: (obj) => {
        if (!isDeletedFinalStateUnknown(obj)) return onChange(keyOf(obj));
        if (obj.obj) onEvent('DELETED', obj.obj, this, { initial: false, relist: true });
        onChange(obj.key);
      },
    });
  }

  start() {
    this.informer.start();
  }

  /** Cuts the watch as a network drop would: it resumes from its resourceVersion. */
  cut() {
    this.lw.cut();
  }
}
