// A browser reflector: one resource kept in a Map by a WebSocket watch on the apiserver, as
// client-go's Reflector keeps a store (k8s.io/client-go tools/cache/reflector.go). The initial
// state and every relist come as a watch-list (sendInitialEvents=true, ended by the
// `k8s.io/initial-events-end` bookmark): a page on another origin can open WebSockets but not
// read a LIST without CORS. After a disconnect it resumes from the last resourceVersion it saw;
// on 410 Gone (the ERROR event the watch cache sends for a compacted resourceVersion) it relists.

const BEARER_PREFIX = 'base64url.bearer.authorization.k8s.io.';
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

function base64url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function keyOf(obj) {
  const m = obj.metadata;
  return m.namespace ? `${m.namespace}/${m.name}` : m.name;
}

export class ResourceWatch {
  /**
   * @param {string} apiserver http(s) URL of the apiserver
   * @param {string} path the collection, e.g. /api/v1/pods
   * @param {{ token?: string, onEvent: (type: string, obj: object, watch: ResourceWatch,
   *   how?: { initial: boolean, initialEventsEnd?: boolean }) => void,
   *   onState: () => void }} options
   */
  constructor(apiserver, path, options) {
    this.base = apiserver.replace(/^http/, 'ws') + path;
    this.path = path;
    this.options = options;
    /** @type {Map<string, any>} */
    this.items = new Map();
    this.resourceVersion = '';
    /** connecting | listing | live | reconnecting */
    this.state = 'connecting';
    /**
     * What a learner sees (reflector.go's steps): watch-list (the first state, as a watch that
     * sends initial events), watching, resuming (a new watch from the last resourceVersion),
     * relisting (after 410 Gone), reconnecting (backing off).
     */
    this.phase = 'watch-list';
    this.synced = false;
    this.restarts = 0;
    this.relists = 0;
    this.resumes = 0;
    this.needRelist = true;
    this.backoff = 250;
    this.stopped = false;
  }

  start() {
    this.connect();
  }

  stop() {
    this.stopped = true;
    this.socket?.close();
  }

  url(listing) {
    const q = new URLSearchParams({ watch: '1', allowWatchBookmarks: 'true' });
    if (listing) {
      q.set('sendInitialEvents', 'true');
      q.set('resourceVersionMatch', 'NotOlderThan');
    } else q.set('resourceVersion', this.resourceVersion);
    return `${this.base}?${q}`;
  }

  setState(state, phase) {
    this.state = state;
    this.phase = phase;
    this.options.onState();
  }

  /** Cuts the watch as a network drop would: it resumes from its resourceVersion. */
  cut() {
    this.socket?.close();
  }

  connect() {
    const listing = this.needRelist || !this.resourceVersion;
    if (listing && this.synced) this.relists++;
    else if (!listing) this.resumes++;
    const fresh = listing ? new Map() : undefined;
    const protocols = this.options.token
      ? [BEARER_PREFIX + base64url(this.options.token)]
      : undefined;
    const socket = new WebSocket(this.url(listing), protocols);
    this.socket = socket;
    this.setState(
      listing ? 'listing' : 'connecting',
      listing ? (this.synced ? 'relisting' : 'watch-list') : 'resuming',
    );
    socket.onopen = () => {
      this.backoff = 250;
      if (!listing) this.setState('live', 'watching');
    };
    socket.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      const event = JSON.parse(message.data);
      const obj = event.object;
      if (event.type === 'ERROR') {
        // 410 Gone: the resourceVersion is compacted away; anything else, retry.
        if (obj?.code === 410) this.needRelist = true;
        this.options.onEvent('ERROR', obj, this, { initial: false });
        socket.close();
        return;
      }
      const rv = obj?.metadata?.resourceVersion;
      if (event.type === 'BOOKMARK') {
        if (rv) this.resourceVersion = rv;
        const end = obj.metadata.annotations?.[INITIAL_EVENTS_END] === 'true';
        this.options.onEvent('BOOKMARK', obj, this, { initial: false, initialEventsEnd: end });
        if (fresh && end) {
          const before = this.items;
          this.items = fresh;
          this.needRelist = false;
          this.synced = true;
          // What the relist found gone or changed is told as the events a Reflector's Replace gives.
          for (const [key, old] of before)
            if (!fresh.has(key)) this.options.onEvent('DELETED', old, this);
          this.options.onEvent('SYNCED', undefined, this);
          this.setState('live', 'watching');
        }
        return;
      }
      if (rv) this.resourceVersion = rv;
      const key = keyOf(obj);
      if (fresh && this.state === 'listing') {
        fresh.set(key, obj);
        // The watch-list's initial state, shown as such (not as changes happening now).
        this.options.onEvent(event.type, obj, this, { initial: true });
        return;
      }
      if (event.type === 'DELETED') this.items.delete(key);
      else this.items.set(key, obj);
      this.options.onEvent(event.type, obj, this, { initial: false });
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      if (this.stopped) return;
      if (listing && this.state === 'listing') this.needRelist = true;
      this.restarts++;
      this.setState('reconnecting', 'reconnecting');
      const delay = this.backoff;
      this.backoff = Math.min(this.backoff * 2, 4000);
      setTimeout(() => this.connect(), delay * (0.5 + Math.random() / 2));
    };
  }
}
