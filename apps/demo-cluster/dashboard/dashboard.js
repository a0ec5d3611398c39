// The demo's dashboard: six informers of @listwatch/client on the apiserver (informers.js), drawn
// at most once per animation frame however many events arrive, so a thousand pods churning stay
// smooth.
import { keyOf, pageClient, PageInformer } from './informers.js';

const FEED_LINES = 200;
const RATE_WINDOW_MS = 5000;

const config = await (await fetch('config.json')).json();
// A token for an apiserver with authentication, given as #token=… (a fragment never leaves the page).
const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined;

const $ = (id) => document.getElementById(id);
const escape = (s) =>
  String(s).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c],
  );

let dirty = false;
const pendingFeed = [];
const eventTimes = [];

function schedule() {
  if (dirty) return;
  dirty = true;
  requestAnimationFrame(render);
}

function describe(kind, obj) {
  if (kind === 'pod') {
    const ready = (obj.status?.containerStatuses ?? []).filter((c) => c.ready).length;
    const total = obj.spec?.containers?.length ?? 0;
    return `node=${obj.spec?.nodeName ?? '<none>'} ${obj.status?.phase ?? 'Pending'} ${ready}/${total}`;
  }
  if (kind === 'deployment' || kind === 'replicaset')
    return `desired=${obj.spec?.replicas ?? 1} ready=${obj.status?.readyReplicas ?? 0}`;
  if (kind === 'node') return isReady(obj) ? 'Ready' : 'NotReady';
  if (kind === 'configmap') return JSON.stringify(obj.data ?? {});
  if (kind === 'foo')
    return `deployment=${obj.spec?.deploymentName ?? ''} replicas=${obj.spec?.replicas ?? ''} available=${obj.status?.availableReplicas ?? 0}`;
  return '';
}

/** A feed line, built only if it is still among the last FEED_LINES when drawn. */
function feedLine(type, kind, obj, how) {
  pendingFeed.push({ type, kind, obj, how });
  if (pendingFeed.length > FEED_LINES) pendingFeed.shift();
}

function buildLine({ type, kind, obj, how }) {
  const line = document.createElement('li');
  line.dataset.type = type;
  line.dataset.kind = kind;
  if (how.initial) line.dataset.initial = 'true';
  if (type === 'ERROR') {
    line.innerHTML = `<b>ERROR</b> ${escape(kind)}s watch: ${escape(obj?.code ?? '')} ${escape(obj?.reason ?? '')} ${escape(obj?.message ?? '')}${obj?.code === 410 ? ' → relist' : ''}`;
    return line;
  }
  const rv = obj.metadata.resourceVersion ?? '';
  line.dataset.rv = rv;
  if (type === 'BOOKMARK') {
    if (how.initialEventsEnd) line.dataset.initialEventsEnd = 'true';
    line.innerHTML = `<b>BOOKMARK</b> ${escape(kind)}s <span class="rv">rv=${escape(rv)}</span>${how.initialEventsEnd ? ' <i>k8s.io/initial-events-end: initial state complete</i>' : ''}`;
    return line;
  }
  line.dataset.name = obj.metadata.name;
  if (kind === 'pod') line.dataset.phase = obj.status?.phase ?? 'Pending';
  line.innerHTML = `<b>${type.padEnd(8)}</b> ${how.initial ? '<i>initial</i> ' : ''}${how.relist ? '<i>gone, found by the relist</i> ' : ''}${escape(kind)}/${escape(keyOf(obj))} <span class="rv">rv=${escape(rv)}</span> ${escape(describe(kind, obj))}`;
  return line;
}

/** What a watch delivered (the observer's view of the wire) or a relist found gone: the feed. */
function onEvent(kind) {
  return (type, obj, informer, how) => {
    // Live changes count towards events/s; the initial state and bookmarks do not.
    if (!how.initial && type !== 'BOOKMARK' && type !== 'ERROR') {
      drawing.events++;
      eventTimes.push(performance.now());
    }
    feedLine(type, kind, obj, how);
    schedule();
  };
}

/** The informer's cache changed: what to redraw. */
function onChange(kind) {
  return (key) => {
    if (kind === 'configmap') configMapsChanged = true;
    else if (kind !== 'pod') structureChanged = true;
    else changedPods.add(key);
    schedule();
  };
}

/** The resources the dashboard watches, by the kind its events and chips name them. */
const WATCHED = {
  node: { group: '', version: 'v1', plural: 'nodes', namespaced: false },
  deployment: { group: 'apps', version: 'v1', plural: 'deployments', namespaced: true },
  replicaset: { group: 'apps', version: 'v1', plural: 'replicasets', namespaced: true },
  pod: { group: '', version: 'v1', plural: 'pods', namespaced: true },
  // kubernetes/sample-controller's custom resource, served from the CRD the demo installs.
  foo: { group: 'samplecontroller.k8s.io', version: 'v1alpha1', plural: 'foos', namespaced: true },
  // The workload's ConfigMaps: the most active resource of the demo.
  configmap: { group: '', version: 'v1', plural: 'configmaps', namespaced: true },
};

const client = pageClient(config.apiserver, token);
const watches = Object.fromEntries(
  Object.entries(WATCHED).map(([kind, resource]) => [
    kind,
    new PageInformer(client, resource, {
      onEvent: onEvent(kind),
      onChange: onChange(kind),
      onState: schedule,
    }),
  ]),
);

function isReady(node) {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function controllerUid(obj) {
  return (obj.metadata.ownerReferences ?? []).find((r) => r.controller)?.uid;
}

const byName = (a, b) => keyOf(a).localeCompare(keyOf(b));

/** An element with a class, attributes and children. */
function el(tag, className, attributes = {}) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  for (const [k, v] of Object.entries(attributes)) e.setAttribute(k, v);
  return e;
}

/** A card: a title line and a box of pods, kept across frames. */
function card(className, attributes) {
  const root = el('div', className, attributes);
  const title = el('b');
  const info = el('span', 'muted');
  const children = el('div');
  const pods = el('div', 'pods');
  root.append(title, ' ', info, children, pods);
  return { root, title, info, children, pods, count: 0 };
}

// The DOM is kept, not redrawn: each pod has two chips (under its node and under its
// ReplicaSet) updated only when the pod changed, and moved only when it moved. Node cards are
// keyed by name (pods name their node), the others by uid (ownerReferences name it).
const nodeCards = new Map();
const unscheduled = card('node', { 'data-node': '' });
unscheduled.title.textContent = 'unscheduled';
const deploymentCards = new Map();
const rsCards = new Map();
const orphanRs = card('deployment');
orphanRs.info.textContent = 'ReplicaSets without a Deployment';
const podChips = new Map();
const changedPods = new Set();
let structureChanged = true;
let configMapsChanged = true;
let nodeTilesChanged = true;
let tilesDrawnAt = 0;

function setChip(chip, pod) {
  const phase = pod.status?.phase ?? 'Pending';
  const ready = (pod.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );
  chip.title = `${keyOf(pod)} ${phase}${pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : ''}`;
  if (chip.textContent !== pod.metadata.name) chip.textContent = pod.metadata.name;
  chip.dataset.name = pod.metadata.name;
  chip.dataset.namespace = pod.metadata.namespace;
  chip.dataset.phase = phase;
  chip.dataset.ready = String(ready);
  chip.dataset.terminating = String(Boolean(pod.metadata.deletionTimestamp));
}

/** Keeps one card per object of `items` in `cards`, in name order under `parentOf(obj)`. */
function syncCards(items, cards, make, update, parentOf, keyFor = (obj) => obj.metadata.uid) {
  const seen = new Set();
  const last = new Map(); // parent -> the card placed last in it
  for (const obj of [...items.values()].sort(byName)) {
    const key = keyFor(obj);
    seen.add(key);
    let c = cards.get(key);
    if (!c) cards.set(key, (c = make(obj)));
    update(c, obj);
    const parent = parentOf(obj);
    const before = last.get(parent) ?? null;
    if (c.root.parentElement !== parent || c.root.previousElementSibling !== before) {
      if (before) before.after(c.root);
      else parent.prepend(c.root);
    }
    last.set(parent, c.root);
  }
  for (const [key, c] of cards)
    if (!seen.has(key)) {
      c.root.remove();
      cards.delete(key);
    }
}

/** Above this many nodes (`pnpm demo --nodes 1000`) they are tiles, not cards with pod chips. */
const NODE_CARDS_MAX = 50;
const aggregatedNodes = () => watches.node.items.size > NODE_CARDS_MAX;

/** One tile per node, coloured by readiness, its pods counted in its title; a summary line. */
function renderNodeTiles(counts) {
  const box = $('nodes');
  box.classList.add('tiles');
  for (const c of nodeCards.values()) c.root.remove();
  nodeCards.clear();
  unscheduled.root.remove();
  const nodes = [...watches.node.items.values()].sort(byName);
  let summary = box.querySelector('.node-summary');
  if (!summary) box.prepend((summary = el('div', 'node-summary')));
  let grid = box.querySelector('.node-grid');
  if (!grid) box.append((grid = el('div', 'node-grid')));
  const ready = nodes.filter(isReady).length;
  summary.textContent = `${nodes.length} nodes: ${ready} Ready, ${nodes.length - ready} NotReady · ${counts.unscheduled} pods unscheduled`;
  while (grid.childElementCount > nodes.length) grid.lastElementChild.remove();
  while (grid.childElementCount < nodes.length) grid.append(el('span', 'node-tile'));
  nodes.forEach((n, i) => {
    const tile = grid.children[i];
    const name = n.metadata.name;
    const title = `${name}: ${isReady(n) ? 'Ready' : 'NotReady'} · ${counts.byNode.get(name) ?? 0} pods`;
    if (tile.title !== title) {
      tile.title = title;
      tile.dataset.node = name;
      tile.dataset.ready = String(isReady(n));
      tile.dataset.pods = String(counts.byNode.get(name) ?? 0);
    }
  });
}

function renderCluster() {
  const aggregated = aggregatedNodes();
  if (structureChanged) {
    structureChanged = false;
    const nodesBox = $('nodes');
    if (!aggregated) {
      nodesBox.classList.remove('tiles');
      nodesBox.querySelector('.node-summary')?.remove();
      nodesBox.querySelector('.node-grid')?.remove();
    } else nodeTilesChanged = true;
    if (!aggregated)
      syncCards(
        watches.node.items,
        nodeCards,
        (n) => card('node', { 'data-node': n.metadata.name }),
        (c, n) => {
          c.title.textContent = n.metadata.name;
          c.ready = isReady(n);
          c.root.classList.toggle('not-ready', !c.ready);
          c.status = `${c.ready ? 'Ready' : 'NotReady'}${n.spec?.unschedulable ? ', SchedulingDisabled' : ''}`;
        },
        () => nodesBox,
        (n) => n.metadata.name,
      );
    const workloads = $('workloads');
    syncCards(
      watches.deployment.items,
      deploymentCards,
      (d) => card('deployment', { 'data-deployment': keyOf(d) }),
      (c, d) => {
        const s = d.status ?? {};
        const desired = d.spec?.replicas ?? 1;
        c.root.dataset.desired = String(desired);
        c.root.dataset.ready = String(s.readyReplicas ?? 0);
        c.title.textContent = keyOf(d);
        c.info.textContent = `desired ${desired} · ready ${s.readyReplicas ?? 0} · updated ${s.updatedReplicas ?? 0} · available ${s.availableReplicas ?? 0}`;
      },
      () => workloads,
    );
    syncCards(
      watches.replicaset.items,
      rsCards,
      (rs) => card('replicaset', { 'data-replicaset': keyOf(rs) }),
      (c, rs) => {
        const desired = rs.spec?.replicas ?? 1;
        c.root.classList.toggle('old', desired === 0);
        c.title.textContent = rs.metadata.name;
        c.info.textContent = `desired ${desired} · ready ${rs.status?.readyReplicas ?? 0}`;
      },
      (rs) => deploymentCards.get(controllerUid(rs))?.children ?? orphanRs.children,
    );
    if (orphanRs.children.childElementCount) workloads.append(orphanRs.root);
    else orphanRs.root.remove();
    renderFoos();
  }
  for (const key of changedPods) {
    const pod = watches.pod.items.get(key);
    let chips = podChips.get(key);
    if (!pod) {
      chips?.node.remove();
      chips?.owner.remove();
      podChips.delete(key);
      continue;
    }
    if (!chips) podChips.set(key, (chips = { node: el('span', 'pod'), owner: el('span', 'pod') }));
    setChip(chips.node, pod);
    setChip(chips.owner, pod);
  }
  changedPods.clear();
  // Place every chip (a pod may have been bound, or its ReplicaSet or node may have come later).
  for (const c of nodeCards.values()) c.count = 0;
  unscheduled.count = 0;
  const counts = { byNode: new Map(), unscheduled: 0 };
  for (const [key, chips] of podChips) {
    const pod = watches.pod.items.get(key);
    if (!pod) continue;
    if (aggregated) {
      const node = pod.spec?.nodeName;
      if (node) counts.byNode.set(node, (counts.byNode.get(node) ?? 0) + 1);
      else counts.unscheduled++;
      chips.node.remove();
    } else {
      const nodeCard = nodeCards.get(pod.spec?.nodeName) ?? unscheduled;
      nodeCard.count++;
      if (chips.node.parentElement !== nodeCard.pods) nodeCard.pods.append(chips.node);
    }
    const rsCard = rsCards.get(controllerUid(pod));
    if (!rsCard) chips.owner.remove();
    else if (chips.owner.parentElement !== rsCard.pods) rsCard.pods.append(chips.owner);
  }
  if (aggregated) {
    // Tiles redrawn at most once a second: a thousand nodes' titles are not worth every frame.
    const now = performance.now();
    if (nodeTilesChanged || now - tilesDrawnAt > 1000) {
      nodeTilesChanged = false;
      tilesDrawnAt = now;
      renderNodeTiles(counts);
    }
    return;
  }
  const pods = (n) => `${n} pod${n === 1 ? '' : 's'}`;
  for (const c of nodeCards.values()) c.info.textContent = `${c.status} · ${pods(c.count)}`;
  unscheduled.info.textContent = pods(unscheduled.count);
  if (unscheduled.count) $('nodes').append(unscheduled.root);
  else unscheduled.root.remove();
}

/** Foos (few): one line each, with the Deployment it owns and what its status reports. */
function renderFoos() {
  const box = $('foos');
  const foos = [...watches.foo.items.values()].sort(byName);
  box.replaceChildren(
    ...foos.map((f) => {
      const line = el('div', 'foo', {
        'data-foo': keyOf(f),
        'data-replicas': String(f.spec?.replicas ?? ''),
        'data-available': String(f.status?.availableReplicas ?? 0),
      });
      const title = el('b');
      title.textContent = keyOf(f);
      const info = el('span', 'muted');
      info.textContent = ` → Deployment ${f.spec?.deploymentName ?? '?'} · replicas ${f.spec?.replicas ?? '–'} · available ${f.status?.availableReplicas ?? 0}`;
      line.append(title, info);
      return line;
    }),
  );
  box.parentElement.hidden = foos.length === 0;
}

function renderStatus() {
  const all = Object.entries(watches);
  const live = all.filter(([, w]) => w.phase === 'watching').length;
  const summary = $('watches');
  summary.dataset.live = String(live);
  summary.dataset.total = String(all.length);
  summary.dataset.resumes = String(all.reduce((n, [, w]) => n + w.resumes, 0));
  summary.dataset.relists = String(all.reduce((n, [, w]) => n + w.relists, 0));
  summary.textContent = `${live}/${all.length} informers watching`;
  summary.className = `watches ${live === all.length ? 'live' : 'reconnecting'}`;
  const body = $('informers');
  for (const [kind, w] of all) {
    let row = informerRows.get(kind);
    if (!row) {
      row = el('tr', '', { 'data-informer': kind });
      row.innerHTML = `<th>${escape(kind)}s</th><td class="phase"></td><td class="rv"></td><td class="size"></td><td class="resumes"></td><td class="relists"></td>`;
      body.append(row);
      informerRows.set(kind, row);
    }
    const values = {
      phase: w.phase,
      rv: w.resourceVersion || '–',
      size: String(w.items.size),
      resumes: String(w.resumes),
      relists: String(w.relists),
    };
    for (const [name, value] of Object.entries(values)) {
      if (row.dataset[name] === value) continue;
      row.dataset[name] = value;
      row.querySelector(`.${name}`).textContent = value;
    }
  }
}

const informerRows = new Map();

/** The workload's ConfigMaps in namespace demo: name, resourceVersion and data, changing live. */
function renderConfigMaps() {
  const box = $('configmaps');
  const all = [...watches.configmap.items.values()];
  const demo = all
    .filter((c) => c.metadata.namespace === 'demo' && c.metadata.name !== 'kube-root-ca.crt')
    .sort(byName);
  $('configmap-count').textContent = `${demo.length} in demo · ${all.length} in the cluster`;
  box.replaceChildren(
    ...demo.map((c) => {
      const line = el('div', 'configmap', {
        'data-configmap': c.metadata.name,
        'data-rv': c.metadata.resourceVersion ?? '',
      });
      line.innerHTML = `<b>${escape(c.metadata.name)}</b> <span class="rv">rv=${escape(c.metadata.resourceVersion ?? '')}</span> <span class="muted">${escape(JSON.stringify(c.data ?? {}))}</span>`;
      return line;
    }),
  );
}

function renderRate() {
  const cutoff = performance.now() - RATE_WINDOW_MS;
  while (eventTimes.length && eventTimes[0] < cutoff) eventTimes.shift();
  $('stat-rate').textContent = (eventTimes.length / (RATE_WINDOW_MS / 1000)).toFixed(1);
}

// How the drawing goes, for whoever looks (and the browser test): draws, events, time spent.
const drawing = { draws: 0, events: 0, totalMs: 0, maxMs: 0 };

function render() {
  const started = performance.now();
  draw();
  const ms = performance.now() - started;
  drawing.draws++;
  drawing.totalMs += ms;
  drawing.maxMs = Math.max(drawing.maxMs, ms);
  Object.assign(document.body.dataset, {
    draws: String(drawing.draws),
    events: String(drawing.events),
    drawMeanMs: (drawing.totalMs / drawing.draws).toFixed(2),
    drawMaxMs: drawing.maxMs.toFixed(1),
  });
}

function draw() {
  dirty = false;
  renderCluster();
  const pods = [...watches.pod.items.values()];
  renderStatus();
  renderRate();
  $('stat-nodes').textContent = String(watches.node.items.size);
  $('stat-pods').textContent = String(pods.length);
  $('stat-running').textContent = String(pods.filter((p) => p.status?.phase === 'Running').length);
  if (configMapsChanged) {
    configMapsChanged = false;
    renderConfigMaps();
  }
  if (pendingFeed.length) {
    const feed = $('feed');
    const fragment = document.createDocumentFragment();
    for (let i = pendingFeed.length - 1; i >= 0; i--) fragment.append(buildLine(pendingFeed[i]));
    pendingFeed.length = 0;
    feed.prepend(fragment);
    while (feed.childElementCount > FEED_LINES) feed.lastElementChild.remove();
  }
}

async function pollStats() {
  try {
    const stats = await (await fetch('stats.json')).json();
    $('stat-watches').textContent = stats.openWatches ?? '–';
    $('stat-server-rate').textContent =
      stats.watchEventsPerSecond === undefined ? '–' : stats.watchEventsPerSecond.toFixed(1);
  } catch {
    $('stat-watches').textContent = '–';
  }
  renderRate();
}

for (const w of Object.values(watches)) w.start();
setInterval(pollStats, 1000);
void pollStats();

// The feed's toggles: bookmarks (with the watch-list's initial-events-end) and the initial state.
for (const [id, className] of [
  ['show-bookmarks', 'hide-bookmarks'],
  ['show-initial', 'hide-initial'],
]) {
  const box = $(id);
  const apply = () => $('feed').classList.toggle(className, !box.checked);
  box.addEventListener('change', apply);
  apply();
}

// "Break it": what the demo process can do to its own control plane (break-it.ts), and the cut
// of this page's own watches when the apiserver runs in the demo process (no balancer to cut).
function breakLog(text) {
  const line = el('li');
  line.textContent = `${new Date().toLocaleTimeString()} ${text}`;
  $('break-log').prepend(line);
}

async function setUpBreakIt() {
  const { actions } = await (await fetch('break-it.json')).json();
  const box = $('break-actions');
  for (const action of actions) {
    const button = el('button', '', { type: 'button', 'data-action': action.id });
    button.textContent = action.label;
    button.title = action.note;
    button.disabled = !action.available;
    const note = el('span', 'muted');
    note.textContent = action.note;
    const row = el('div', 'break-action');
    row.append(button, note);
    box.append(row);
    button.addEventListener('click', async () => {
      button.disabled = true;
      try {
        const res = await fetch(`break-it/${action.id}`, { method: 'POST' });
        const answer = await res.json();
        if (answer.cutPage) for (const w of Object.values(watches)) w.cut();
        breakLog(answer.message);
        document.body.dataset.lastBreak = action.id;
      } catch (err) {
        breakLog(`${action.label} failed: ${err}`);
      } finally {
        button.disabled = !action.available;
      }
    });
  }
}
void setUpBreakIt();
