// The demo's dashboard: five WebSocket watches on the apiserver (watch.js), drawn at most once per
// animation frame however many events arrive, so a thousand pods churning stay smooth.
import { keyOf, ResourceWatch } from './watch.js';

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
  if (kind === 'foo')
    return `deployment=${obj.spec?.deploymentName ?? ''} replicas=${obj.spec?.replicas ?? ''} available=${obj.status?.availableReplicas ?? 0}`;
  return '';
}

function onEvent(kind) {
  return (type, obj, watch) => {
    if (kind !== 'pod') structureChanged = true;
    else if (type === 'SYNCED') for (const key of watch.items.keys()) changedPods.add(key);
    else changedPods.add(keyOf(obj));
    if (type === 'SYNCED' && kind === 'pod')
      for (const key of podChips.keys()) if (!watch.items.has(key)) changedPods.add(key);
    if (type !== 'SYNCED') {
      drawing.events++;
      eventTimes.push(performance.now());
      const line = document.createElement('li');
      line.dataset.type = type;
      line.dataset.kind = kind;
      line.dataset.name = obj.metadata.name;
      if (kind === 'pod') line.dataset.phase = obj.status?.phase ?? 'Pending';
      line.innerHTML = `<b>${type.padEnd(8)}</b> ${escape(kind)}/${escape(keyOf(obj))} ${escape(describe(kind, obj))}`;
      pendingFeed.push(line);
      if (pendingFeed.length > FEED_LINES) pendingFeed.shift();
    }
    schedule();
  };
}

/** The resources the dashboard watches, by the kind its events and chips name them. */
const WATCHED = {
  node: '/api/v1/nodes',
  deployment: '/apis/apps/v1/deployments',
  replicaset: '/apis/apps/v1/replicasets',
  pod: '/api/v1/pods',
  // kubernetes/sample-controller's custom resource, served from the CRD the demo installs.
  foo: '/apis/samplecontroller.k8s.io/v1alpha1/foos',
};

const watches = Object.fromEntries(
  Object.entries(WATCHED).map(([kind, path]) => [
    kind,
    new ResourceWatch(config.apiserver, path, { token, onEvent: onEvent(kind), onState: schedule }),
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

function setChip(chip, pod) {
  const phase = pod.status?.phase ?? 'Pending';
  const ready = (pod.status?.conditions ?? []).some(
    (c) => c.type === 'Ready' && c.status === 'True',
  );
  chip.title = `${keyOf(pod)} ${phase}${pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : ''}`;
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

function renderCluster() {
  if (structureChanged) {
    structureChanged = false;
    const nodesBox = $('nodes');
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
  for (const [key, chips] of podChips) {
    const pod = watches.pod.items.get(key);
    if (!pod) continue;
    const nodeCard = nodeCards.get(pod.spec?.nodeName) ?? unscheduled;
    nodeCard.count++;
    if (chips.node.parentElement !== nodeCard.pods) nodeCard.pods.append(chips.node);
    const rsCard = rsCards.get(controllerUid(pod));
    if (!rsCard) chips.owner.remove();
    else if (chips.owner.parentElement !== rsCard.pods) rsCard.pods.append(chips.owner);
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
  const live = all.filter(([, w]) => w.state === 'live').length;
  const el = $('watches');
  el.dataset.live = String(live);
  el.dataset.resumes = String(all.reduce((n, [, w]) => n + w.resumes, 0));
  el.dataset.relists = String(all.reduce((n, [, w]) => n + w.relists, 0));
  el.innerHTML = all
    .map(
      ([kind, w]) =>
        `<span class="${w.state}" title="resourceVersion ${escape(w.resourceVersion)}, ${w.restarts} restarts, ${w.resumes} resumes, ${w.relists} relists">${kind}s ${w.state}</span>`,
    )
    .join('');
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
  if (pendingFeed.length) {
    const feed = $('feed');
    const fragment = document.createDocumentFragment();
    for (let i = pendingFeed.length - 1; i >= 0; i--) fragment.append(pendingFeed[i]);
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
