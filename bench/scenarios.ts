// Every scenario of `pnpm bench`, in the order they run. A scenario is a module exporting
// `scenario` (bench/lib.ts); it lives next to the package it measures, in packages/*/bench
// (density: apps/demo-cluster/bench, beside the simulated nodes it drives). To add one, add a
// line here and a section to bench/README.md.

/** name → the module, from the repository root. */
export const SCENARIOS: readonly { name: string; module: string }[] = [
  { name: 'fanout', module: 'packages/apiserver/bench/fanout.ts' },
  { name: 'transports', module: 'packages/apiserver/bench/transports.ts' },
  { name: 'informer-sync', module: 'packages/client/bench/informer-sync.ts' },
  { name: 'list-memory', module: 'packages/client/bench/list-memory.ts' },
  { name: 'slow-watchers', module: 'packages/apiserver/bench/slow-watchers.ts' },
  { name: 'write-path', module: 'packages/apiserver/bench/write-path.ts' },
  { name: 'idle-watchers', module: 'packages/apiserver/bench/idle-watchers.ts' },
  { name: 'storage-shield', module: 'packages/apiserver/bench/storage-shield.ts' },
  { name: 'cold-start', module: 'packages/apiserver/bench/cold-start.ts' },
  { name: 'envtest', module: 'packages/apiserver/bench/envtest.ts' },
  { name: 'density', module: 'apps/demo-cluster/bench/density.ts' },
  { name: 'list-stall', module: 'packages/apiserver/bench/list-stall.ts' },
  // The package benchmarks that came before the suite, with their measurements.
  { name: 'codec', module: 'packages/codec/bench/codec.ts' },
  { name: 'storage', module: 'packages/storage/bench/storage.ts' },
  { name: 'cacher', module: 'packages/storage/bench/cacher.ts' },
  { name: 'cache-reads', module: 'packages/storage/bench/cache-reads.ts' },
  { name: 'crd-validation', module: 'packages/apiserver/bench/crd-validation.ts' },
  { name: 'apply', module: 'packages/apiserver/bench/apply.ts' },
];

export const SCENARIO_NAMES: readonly string[] = SCENARIOS.map((s) => s.name);
