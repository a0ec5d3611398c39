import { LogStorage, type LogStorageOptions } from '../log-storage.js';
import { MemoryLog } from './memory-log.js';

export type MemoryStorageOptions = LogStorageOptions;

/** Storage held in this process's memory: for tests and ephemeral demos. Gone on exit. */
export class MemoryStorage extends LogStorage {
  constructor(options: MemoryStorageOptions = {}) {
    super(new MemoryLog(), options, true);
  }
}
