// Test fixture: writes objects forever, printing "<name> <revision>" after each acknowledged write,
// until the test kills it with SIGKILL.
import { SqliteStorage } from '../sqlite-storage.js';

const file = process.argv[2];
if (!file) throw new Error('usage: crash-writer <file>');
const storage = new SqliteStorage({ file, compactionInterval: 0 });
for (let i = 0; ; i++) {
  const name = `o${i}`;
  const stored = await storage.create(`/registry/configmaps/ns/${name}`, {
    metadata: { name, namespace: 'ns' },
  });
  process.stdout.write(`${name} ${stored.metadata.resourceVersion}\n`);
}
