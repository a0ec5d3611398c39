import type { TestProject } from 'vitest/node';
import { ensurePrerequisites, needsMessage } from './prerequisites.js';
import { TIER_ENV, tiers } from './tiers.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** What the project's tier lacks, `needs etcd (…how to install it…)`; empty when nothing. */
    listwatchMissing: string;
  }
}

// The global setup of every project of a tier with prerequisites (tiers.ts). Vitest runs a
// project's global setup only when one of its files is selected, so a run that needs no etcd
// never looks for it. Makes sure of the prerequisites once per run — as root, installing what
// Debian packages — and hands what is still missing to tier-setup.ts, which fails each test file
// of the tier with it: a clear failure naming what to install, never a silent skip.
export default function setup(project: TestProject): void {
  const tier = tiers.find((t) => t.name === project.config.env[TIER_ENV]);
  const missing = ensurePrerequisites(tier?.needs ?? [], (line) =>
    console.log(`[test-setup] ${line}`),
  );
  const message = missing.length > 0 ? needsMessage(missing) : '';
  if (message) console.log(`[test-setup] ${project.name} ${message}`);
  project.provide('listwatchMissing', message);
}
