/** What informer-sync measures, one fresh process each (procs/informer-client.ts). */
export const MODES = [
  'ours: SharedIndexInformer',
  'ours: makeInformer',
  'ours: SharedIndexInformer + stripManagedFields',
  'ours: SharedIndexInformer + slimLists',
  'client-node',
  'bare',
  'decode floor',
] as const;
export type Mode = (typeof MODES)[number];
