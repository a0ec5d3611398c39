/** k8s.io/apimachinery/pkg/version.Info, the body of `GET /version`. */
export interface VersionInfo {
  major: string;
  minor: string;
  gitVersion: string;
  gitCommit: string;
  gitTreeState: string;
  buildDate: string;
  goVersion: string;
  compiler: string;
  platform: string;
}

/**
 * The Kubernetes version this server speaks. kubectl compares it with its own (and warns beyond
 * one minor version of skew), and version-dispatching kubectl wrappers pick their binary by it.
 */
export const KUBERNETES_VERSION = {
  major: '1',
  minor: '32',
  gitVersion: 'v1.32.0-listwatch',
} as const;

export function versionInfo(): VersionInfo {
  return {
    ...KUBERNETES_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    // Not a Go binary: say which runtime serves the API instead.
    goVersion: `node${process.versions.node}`,
    compiler: 'tsc',
    platform: `${process.platform}/${process.arch === 'x64' ? 'amd64' : process.arch}`,
  };
}
