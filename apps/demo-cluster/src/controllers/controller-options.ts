import type { Logger } from '@listwatch/api';
import type { RestClient, SharedInformerFactory } from '@listwatch/client';

/** What every informer-driven controller of the demo is given (kube-controller-manager's ControllerContext). */
export interface ControllerOptions {
  client: RestClient;
  /** Shared with the other controllers of the process: one watch per resource for all of them. */
  factory: SharedInformerFactory;
  /** Parallel syncs of different keys (the --concurrent-*-syncs flags). */
  workers?: number;
  logger?: Logger;
}
