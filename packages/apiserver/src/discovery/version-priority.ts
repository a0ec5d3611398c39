// Orders API versions the way Kubernetes does (k8s.io/apimachinery/pkg/version/helpers.go,
// CompareKubeAwareVersionStrings): GA before beta before alpha, then by major, then by minor,
// so a group's preferred version is the first of `sortByVersionPriority(versions)`.

const KUBE_VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;

/** A version string in the `v<major>[alpha|beta<minor>]` form. */
export interface KubeVersion {
  major: bigint;
  /** 2 = GA, 1 = beta, 0 = alpha: bigger wins. */
  stability: 0 | 1 | 2;
  minor: bigint;
}

/** Parses `v1`, `v2beta3`, `v1alpha1`; anything else (`v1.2`, `1`, `vbeta1`) is undefined. */
export function parseKubeVersion(version: string): KubeVersion | undefined {
  const match = KUBE_VERSION.exec(version);
  if (!match) return undefined;
  const [, major = '0', stage, minor = '0'] = match;
  return {
    major: BigInt(major),
    stability: stage === 'alpha' ? 0 : stage === 'beta' ? 1 : 2,
    minor: stage === undefined ? 0n : BigInt(minor),
  };
}

function sign(n: bigint | number): number {
  return n > 0 ? 1 : n < 0 ? -1 : 0;
}

/**
 * > 0 when `a` has the higher priority, < 0 when `b` has, 0 when they rank the same. Kube-like
 * versions outrank the rest; two non-kube versions rank in reverse lexical order, as in Go.
 */
export function compareVersionPriority(a: string, b: string): number {
  if (a === b) return 0;
  const va = parseKubeVersion(a);
  const vb = parseKubeVersion(b);
  if (!va && !vb) return a < b ? 1 : -1;
  if (!va) return -1;
  if (!vb) return 1;
  if (va.stability !== vb.stability) return sign(va.stability - vb.stability);
  if (va.major !== vb.major) return sign(va.major - vb.major);
  return sign(va.minor - vb.minor);
}

/** Highest priority first: `[v2, v1, v1beta2, v1beta1, v1alpha1, foo1, foo10]`. */
export function sortByVersionPriority(versions: Iterable<string>): string[] {
  return [...versions].sort((a, b) => compareVersionPriority(b, a));
}
