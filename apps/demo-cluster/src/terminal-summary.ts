import { SharedInformerFactory, type Logger, type RestClient } from '@listwatch/client';
import type { ApiServerStats } from './dashboard-server.js';
import {
  isNodeSchedulable,
  isPodReady,
  resources,
  type Deployment,
  type Node,
  type Pod,
} from './controllers/objects.js';

export interface SummaryView {
  apiserver: string;
  dashboard: string;
  nodes: { name: string; schedulable: boolean; pods: number; ready: number }[];
  deployments: { name: string; desired: number; ready: number; updated: number }[];
  /** Events the summary's own informers received per second. */
  eventsPerSecond: number;
  stats: ApiServerStats;
  /** The latest lines the demo reported (leadership and such). */
  notes: readonly string[];
}

const dash = (n: number | undefined, digits = 0) => (n === undefined ? '–' : n.toFixed(digits));

/** Above this many nodes the summary counts them instead of listing them. */
const NODE_LINES_MAX = 20;

/** The one screen: URLs, nodes, Deployments desired/ready, rates and open watches. */
export function formatSummary(view: SummaryView): string[] {
  const lines = [
    `listwatch demo cluster   apiserver ${view.apiserver}   dashboard ${view.dashboard}`,
    `events/s ${view.eventsPerSecond.toFixed(1)}   apiserver events/s ${dash(view.stats.watchEventsPerSecond, 1)}   open watches ${dash(view.stats.openWatches)}`,
    '',
    `NODES (${view.nodes.length})`,
  ];
  if (view.nodes.length > NODE_LINES_MAX) {
    // `--nodes 1000`: one line for all of them (a screen cannot hold a line each).
    const ready = view.nodes.filter((n) => n.schedulable).length;
    const pods = view.nodes.reduce((sum, n) => sum + n.pods, 0);
    lines.push(`  ${ready} Ready, ${view.nodes.length - ready} NotReady; ${pods} pods on them`);
  } else
    for (const n of view.nodes)
      lines.push(
        `  ${n.name.padEnd(12)} ${(n.schedulable ? 'Ready' : 'NotReady').padEnd(9)} pods ${n.pods} (${n.ready} ready)`,
      );
  lines.push('', `DEPLOYMENTS (${view.deployments.length})`);
  for (const d of view.deployments) {
    const done = d.ready === d.desired && d.updated === d.desired;
    lines.push(
      `  ${d.name.padEnd(24)} ready ${`${d.ready}/${d.desired}`.padEnd(9)} updated ${String(d.updated).padEnd(5)} ${done ? '' : '(rolling out)'}`.trimEnd(),
    );
  }
  if (view.notes.length) lines.push('', ...view.notes);
  lines.push(
    '',
    `kubectl --server ${view.apiserver} get pods -A -w   ·   Ctrl-C stops the cluster`,
  );
  return lines;
}

/**
 * What to write to turn the screen showing `previous` (undefined: whatever the terminal had) into
 * `next`: the first frame clears the screen once, every later one rewrites only the lines that
 * changed (and blanks those the shorter frame no longer has), so nothing flickers and nothing
 * drawn above the live part (the hints) is lost. Unchanged: nothing at all.
 */
export function renderFrame(
  previous: readonly string[] | undefined,
  next: readonly string[],
): string {
  if (previous === undefined) return `\x1b[H\x1b[2J${next.join('\n')}\n`;
  let out = '';
  const rows = Math.max(previous.length, next.length);
  for (let row = 0; row < rows; row++) {
    const line = next[row] ?? '';
    if (line === (previous[row] ?? '')) continue;
    // Row `row + 1`, column 1; erase the line; write it.
    out += `\x1b[${row + 1};1H\x1b[2K${line}`;
  }
  // The cursor rests below the frame, where a line written after it (an error) shows.
  return out === '' ? '' : `${out}\x1b[${next.length + 1};1H`;
}

/**
 * A live one-screen summary for a terminal, redrawn twice a second (only the lines that changed)
 * from informers on nodes, Deployments and pods in all namespaces (the lines of events go to the
 * dashboard then), below the lines printed before it (URLs, hints) and above the latest notes.
 */
export class TerminalSummary {
  private readonly factory: SharedInformerFactory;
  private readonly nodes;
  private readonly deployments;
  private readonly pods;
  private readonly eventTimes: number[] = [];
  private readonly notes: string[] = [];
  private timer?: NodeJS.Timeout;
  private stats: ApiServerStats = {};
  /** The lines on the screen now (undefined before the first draw). */
  private frame: string[] | undefined;

  constructor(
    client: RestClient,
    private readonly options: {
      apiserver: string;
      dashboard: string;
      stats: () => Promise<ApiServerStats>;
      write: (text: string) => void;
      /** Lines kept above the live part, as they were printed before it started (the hints). */
      header?: () => readonly string[];
      logger?: Logger;
    },
  ) {
    this.factory = new SharedInformerFactory({
      client,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    const count = {
      onAdd: () => this.eventTimes.push(Date.now()),
      onUpdate: () => this.eventTimes.push(Date.now()),
      onDelete: () => this.eventTimes.push(Date.now()),
    };
    const nodes = this.factory.informerFor<Node>(resources.nodes);
    const deployments = this.factory.informerFor<Deployment>(resources.deployments);
    const pods = this.factory.informerFor<Pod>(resources.pods);
    for (const informer of [nodes, deployments, pods]) informer.addEventHandler(count);
    this.nodes = nodes.lister();
    this.deployments = deployments.lister();
    this.pods = pods.lister();
  }

  /** Keeps a line the demo reported, shown under the summary. */
  note(line: string): void {
    this.notes.push(line);
    if (this.notes.length > 5) this.notes.shift();
  }

  view(): SummaryView {
    const cutoff = Date.now() - 5000;
    while (this.eventTimes.length && this.eventTimes[0]! < cutoff) this.eventTimes.shift();
    const pods = this.pods.list();
    return {
      apiserver: this.options.apiserver,
      dashboard: this.options.dashboard,
      nodes: this.nodes
        .list()
        .map((node) => {
          const mine = pods.filter((p) => p.spec?.nodeName === node.metadata.name);
          return {
            name: node.metadata.name ?? '',
            schedulable: isNodeSchedulable(node),
            pods: mine.length,
            ready: mine.filter(isPodReady).length,
          };
        })
        .sort((a, b) => a.name.localeCompare(b.name)),
      deployments: this.deployments
        .list()
        .map((d) => ({
          name: `${d.metadata.namespace}/${d.metadata.name}`,
          desired: d.spec?.replicas ?? 1,
          ready: d.status?.readyReplicas ?? 0,
          updated: d.status?.updatedReplicas ?? 0,
        }))
        .sort((a, b) => a.name.localeCompare(b.name)),
      eventsPerSecond: this.eventTimes.length / 5,
      stats: this.stats,
      notes: this.notes,
    };
  }

  private draw(): void {
    const header = this.options.header?.() ?? [];
    const frame = [...header, ...(header.length ? [''] : []), ...formatSummary(this.view())];
    const text = renderFrame(this.frame, frame);
    this.frame = frame;
    if (text) this.options.write(text);
  }

  start(): void {
    this.factory.start();
    let polling = false;
    this.timer = setInterval(() => {
      this.draw();
      if (polling) return;
      polling = true;
      void this.options
        .stats()
        .then((stats) => (this.stats = stats))
        .finally(() => (polling = false));
    }, 500);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.factory.shutdown();
  }
}
