export { ensureDebianPackage, ensurePythonKubernetes, PYTHON } from './debian-package.js';
export { ensureEtcdBinary } from './etcd-binary.js';
export {
  EtcdCluster,
  EtcdMember,
  etcdDefaultFlagsFromEnv,
  startEtcd,
  type EtcdClusterOptions,
  type EtcdMemberOptions,
} from './etcd-server.js';
export { eventually } from './eventually.js';
export { silentLogger } from './logger.js';
export { freePort } from './ports.js';
export {
  ensurePrerequisites,
  needsMessage,
  prerequisites,
  type Prerequisite,
  type PrerequisiteName,
} from './prerequisites.js';
export { findOnPath, KUBECTL } from './programs.js';
export { KubectlSession } from './kubectl.js';
export {
  curl,
  curlCode,
  runProgram,
  RunningProcess,
  spawnCurl,
  spawnSource,
  TSX_NODE_ARGS,
  type ProcessResult,
  type SourceProcess,
} from './process.js';
export {
  storageBackends,
  type StorageBackend,
  type StorageBackendName,
  type StorageFactories,
} from './storage-backends.js';
export { seededRandom, testSeed, type SeededRandom } from './seeded-random.js';
export { tempDir } from './temp-dir.js';
export { TcpProxy } from './tcp-proxy.js';
export { TestCa, type IssueOptions, type IssuedCertificate } from './pki.js';
export {
  backendMatrices,
  currentTier,
  TIER_ENV,
  tiers,
  unsuffixed,
  type Tier,
  type TierName,
} from './tiers.js';
export { goldenDir } from './golden.js';
export { samplePod, samplePods } from './sample-pods.js';
