import { join, resolve } from 'node:path';
import { Etcd3Storage, type Etcd3StorageOptions } from './etcd3/etcd3-storage.js';
import { MemoryStorage } from './memory/memory-storage.js';
import { SqliteStorage, type SqliteStorageOptions } from './sqlite/sqlite-storage.js';
import type { BackendOptions, Storage } from './storage.js';

export type StorageBackend = 'memory' | 'sqlite' | 'etcd3';

export const STORAGE_BACKENDS: readonly StorageBackend[] = ['memory', 'sqlite', 'etcd3'];

/** The SQLite file inside `dataDir` (k3s keeps `state.db` in its data dir too). */
export const SQLITE_FILE = 'state.db';

export interface CreateStorageOptions extends BackendOptions {
  /** Default `sqlite`: durable and embedded, like k3s. */
  backend?: StorageBackend;
  /** sqlite: the directory of the database file (default `./listwatch-data`). */
  dataDir?: string;
  /** etcd3: member client URLs (`--etcd-servers`; default http://127.0.0.1:2379). */
  endpoints?: string[];
  /** etcd3: per-operation timeout in ms (default 5 s). */
  requestTimeout?: number;
  /** sqlite: `synchronous` pragma (default FULL). */
  synchronous?: SqliteStorageOptions['synchronous'];
}

/** Opens the configured backend (kube-apiserver's `--storage-backend`, plus the embedded ones). */
export function createStorage(options: CreateStorageOptions = {}): Storage {
  const common: BackendOptions = {
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.compactionInterval !== undefined
      ? { compactionInterval: options.compactionInterval }
      : {}),
    ...(options.progressNotifyInterval !== undefined
      ? { progressNotifyInterval: options.progressNotifyInterval }
      : {}),
    ...(options.transformerFor ? { transformerFor: options.transformerFor } : {}),
  };
  const backend = options.backend ?? 'sqlite';
  switch (backend) {
    case 'memory':
      return new MemoryStorage(common);
    case 'sqlite':
      return new SqliteStorage({
        ...common,
        file: join(resolve(options.dataDir ?? 'listwatch-data'), SQLITE_FILE),
        ...(options.synchronous !== undefined ? { synchronous: options.synchronous } : {}),
      });
    case 'etcd3': {
      const etcd: Etcd3StorageOptions = {
        ...common,
        ...(options.endpoints !== undefined ? { endpoints: options.endpoints } : {}),
        ...(options.requestTimeout !== undefined ? { requestTimeout: options.requestTimeout } : {}),
      };
      return new Etcd3Storage(etcd);
    }
    default:
      throw new Error(
        `unknown storage backend ${JSON.stringify(String(backend))}: use one of ${STORAGE_BACKENDS.join(', ')}`,
      );
  }
}
