// Native addons (better-sqlite3) build with node-gyp. pnpm 11+ passes only a few environment
// variables to install scripts, so npm's `nodedir` setting does not reach node-gyp, which would
// then try to download Node's headers. Point it at the headers installed beside this Node.
const fs = require('node:fs');
const path = require('node:path');

const nodeDir = path.resolve(process.execPath, '..', '..');
const hasHeaders = fs.existsSync(path.join(nodeDir, 'include', 'node', 'node.h'));

module.exports = {
  hooks: {
    // The published package.json is a user's: no monorepo scripts, no devDependencies on
    // private workspace packages (scripts/pack-check.ts checks it).
    beforePacking(pkg) {
      delete pkg.scripts;
      delete pkg.devDependencies;
      return pkg;
    },
    updateConfig(config) {
      if (!hasHeaders) return config;
      config.extraEnv = { ...config.extraEnv, npm_config_nodedir: nodeDir };
      return config;
    },
  },
};
