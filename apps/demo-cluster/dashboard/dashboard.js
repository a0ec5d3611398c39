// The demo's dashboard: four WebSocket watches on the apiserver (watch.js), drawn at most once per
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
  return '';
}

function onEvent(kind) {
  return (type, obj) => {
    if (type !== 'SYNCED') {
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

const watches = {
  node: new ResourceWatch(config.apiserver, '/api/v1/nodes', {
    token,
    onEvent: onEvent('node'),
    onState: schedule,
  }),
  deployment: new ResourceWatch(config.apiserver, '/apis/apps/v1/deployments', {
    token,
    onEvent: onEvent('deployment'),
    onState: schedule,
  }),
  replicaset: new ResourceWatch(config.apiserver, '/apis/apps/v1/replicasets', {
    token,
    onEvent: onEvent('replicaset'),
    onState: schedule,
  }),
  pod: new ResourceWatch(config.apiserver, '/api/v1/pods', {
    token,
    onEvent: onEvent('pod'),
    onState: schedule,
  }),
};

function isReady(node) {
  return (node.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

function controllerUid(obj) {
  return (obj.metadata.ownerReferences ?? []).find((r) => r.controller)?.uid;
}

function podChip(pod) {
  const ready = (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
  return `<span class="pod" title="${escape(keyOf(pod))} ${escape(pod.status?.phase ?? 'Pending')}" data-name="${escape(pod.metadata.name)}" data-namespace="${escape(pod.metadata.namespace)}" data-phase="${escape(pod.status?.phase ?? 'Pending')}" data-ready="${ready}" data-terminating="${Boolean(pod.metadata.deletionTimestamp)}"></span>`;
}

const byName = (a, b) => keyOf(a).localeCompare(keyOf(b));

function renderNodes(pods) {
  const byNode = new Map();
  for (const pod of pods) {
    const node = pod.spec?.nodeName ?? '';
    if (!byNode.has(node)) byNode.set(node, []);
    byNode.get(node).push(pod);
  }
  const nodes = [...watches.node.items.values()].sort(byName);
  const cards = nodes.map((node) => {
    const mine = byNode.get(node.metadata.name) ?? [];
    const ready = isReady(node);
    return `<div class="node${ready ? '' : ' not-ready'}" data-node="${escape(node.metadata.name)}"><b>${escape(node.metadata.name)}</b> <span class="muted">${ready ? 'Ready' : 'NotReady'}${node.spec?.unschedulable ? ', SchedulingDisabled' : ''} · ${mine.length} pods</span><div class="pods">${mine.map(podChip).join('')}</div></div>`;
  });
  const unscheduled = byNode.get('') ?? [];
  if (unscheduled.length)
    cards.push(
      `<div class="node" data-node=""><b>unscheduled</b> <span class="muted">${unscheduled.length} pods</span><div class="pods">${unscheduled.map(podChip).join('')}</div></div>`,
    );
  $('nodes').innerHTML = cards.join('') || '<span class="muted">no nodes</span>';
}

function renderWorkloads(pods) {
  const podsByOwner = new Map();
  for (const pod of pods) {
    const uid = controllerUid(pod);
    if (!uid) continue;
    if (!podsByOwner.has(uid)) podsByOwner.set(uid, []);
    podsByOwner.get(uid).push(pod);
  }
  const rsByOwner = new Map();
  for (const rs of watches.replicaset.items.values()) {
    const uid = controllerUid(rs) ?? '';
    if (!rsByOwner.has(uid)) rsByOwner.set(uid, []);
    rsByOwner.get(uid).push(rs);
  }
  const rsHtml = (rs) => {
    const desired = rs.spec?.replicas ?? 1;
    const mine = (podsByOwner.get(rs.metadata.uid) ?? []).sort(byName);
    return `<div class="replicaset${desired === 0 ? ' old' : ''}" data-replicaset="${escape(keyOf(rs))}">${escape(rs.metadata.name)} <span class="muted">desired ${desired} · ready ${rs.status?.readyReplicas ?? 0}</span><div class="pods">${mine.map(podChip).join('')}</div></div>`;
  };
  const deployments = [...watches.deployment.items.values()].sort(byName);
  const html = deployments.map((d) => {
    const rss = (rsByOwner.get(d.metadata.uid) ?? []).sort(byName);
    const s = d.status ?? {};
    return `<div class="deployment" data-deployment="${escape(keyOf(d))}" data-desired="${d.spec?.replicas ?? 1}" data-ready="${s.readyReplicas ?? 0}"><b>${escape(keyOf(d))}</b> <span class="muted">desired ${d.spec?.replicas ?? 1} · ready ${s.readyReplicas ?? 0} · updated ${s.updatedReplicas ?? 0} · available ${s.availableReplicas ?? 0}</span>${rss.map(rsHtml).join('')}</div>`;
  });
  // ReplicaSets no Deployment controls.
  const deploymentUids = new Set(deployments.map((d) => d.metadata.uid));
  for (const [uid, rss] of rsByOwner)
    if (!deploymentUids.has(uid))
      html.push(
        `<div class="deployment"><span class="muted">without a Deployment</span>${rss.sort(byName).map(rsHtml).join('')}</div>`,
      );
  $('workloads').innerHTML = html.join('') || '<span class="muted">no deployments</span>';
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

function render() {
  dirty = false;
  const pods = [...watches.pod.items.values()];
  renderNodes(pods);
  renderWorkloads(pods);
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
