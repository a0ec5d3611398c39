import { storageContract } from '../testing/contract.js';
import { MemoryStorage } from './memory-storage.js';

storageContract('memory', {
  open: (options) => Promise.resolve(new MemoryStorage({ compactionInterval: 0, ...options })),
});
