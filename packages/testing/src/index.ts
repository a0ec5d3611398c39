export { ensureDebianPackage, ensurePythonKubernetes, PYTHON } from './debian-package.js';
export { ensureEtcdBinary } from './etcd-binary.js';
export { EtcdCluster, EtcdMember, startEtcd, type EtcdMemberOptions } from './etcd-server.js';
export { freePort } from './ports.js';
export { tempDir } from './temp-dir.js';
export { TcpProxy } from './tcp-proxy.js';
export { TestCa, type IssueOptions, type IssuedCertificate } from './pki.js';
