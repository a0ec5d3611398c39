#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { parseArgs, usage } from './cli.js';
import { jsonLogger, type LogLevel } from './logger.js';
import { startApiServer } from './server.js';

// `pnpm apiserver [flags]`: serve until SIGTERM/SIGINT, then shut down cleanly.
async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`Error: ${(err as Error).message}\n\n${usage()}\n`);
    process.exit(2);
  }
  if (parsed.help) {
    process.stdout.write(`${usage()}\n`);
    return;
  }
  const { options, files } = parsed;
  if ((files.cert === undefined) !== (files.key === undefined)) {
    process.stderr.write('Error: --tls-cert-file and --tls-private-key-file go together\n');
    process.exit(2);
  }
  if (files.cert && files.key) {
    options.tlsCert = readFileSync(files.cert, 'utf8');
    options.tlsKey = readFileSync(files.key, 'utf8');
  }
  if (files.clientCA) options.clientCA = readFileSync(files.clientCA, 'utf8');
  options.logger = jsonLogger(parsed.logLevel as LogLevel);
  const server = await startApiServer(options);
  process.stdout.write(`listwatch apiserver serving on ${server.url}\n`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    options.logger?.info('shutting down', { signal });
    void server.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

void main().catch((err: unknown) => {
  process.stderr.write(`Error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
