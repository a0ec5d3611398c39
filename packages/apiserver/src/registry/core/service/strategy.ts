import { ApiError, fieldErrors, goSyntax, isDNS1123Label, type FieldError } from '@listwatch/api';
import type { Storage } from '@listwatch/storage';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import { randomInt } from 'node:crypto';
import { isValidPortName, isValidPortNum } from '../pod/validation.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The Service's registry: defaults from k8s.io/kubernetes pkg/apis/core/v1/defaults.go
// (SetDefaults_Service), the REST storage's allocations (pkg/registry/core/service/storage/
// alloc.go: a cluster IP from the service CIDR with ipFamilies and ipFamilyPolicy, node ports
// from the node port range; patchAllocatedValues keeps them on update), the strategy
// (pkg/registry/core/service/strategy.go: no status on create) and validation
// (pkg/apis/core/validation/validation.go ValidateService, ValidateServiceUpdate).

/** kube-apiserver's default --service-cluster-ip-range. */
export const SERVICE_CIDR = '10.96.0.0/12';
const CIDR_BASE = ipToNumber('10.96.0.0');
const CIDR_SIZE = 2 ** 20;
/**
 * ipallocator's offset: dynamic allocations come from above it first, leaving the lower band
 * (the first 256 addresses of a /12) to addresses users ask for.
 */
const IP_OFFSET = 256;
/** The default --service-node-port-range, and portallocator's offset for it. */
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;
const NODE_PORT_OFFSET = 86;

function ipToNumber(ip: string): number {
  return ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

function numberToIp(n: number): string {
  return [24, 16, 8, 0].map((shift) => Math.floor(n / 2 ** shift) % 256).join('.');
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** A Service as decoded (kubernetes-types' core/v1 Service). */
export type Service = TypedObject<corev1.Service>;
type ServiceSpec = NonNullable<Service['spec']>;

function specOf(service: Service): ServiceSpec {
  return (service.spec ??= {});
}

const externallyAccessible = (type: string) => type === 'NodePort' || type === 'LoadBalancer';

/** SetDefaults_Service. */
export function setServiceDefaults(service: Service): void {
  const spec = specOf(service);
  spec.sessionAffinity ||= 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    if (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds === undefined)
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: 10800 } };
  }
  spec.type ||= 'ClusterIP';
  const type = spec.type;
  for (const port of spec.ports ?? []) {
    port.protocol ||= 'TCP';
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') {
      if (port.port === undefined) delete port.targetPort;
      else port.targetPort = port.port;
    }
  }
  if (externallyAccessible(type)) spec.externalTrafficPolicy ||= 'Cluster';
  if (
    spec.internalTrafficPolicy === undefined &&
    (externallyAccessible(type) || type === 'ClusterIP')
  )
    spec.internalTrafficPolicy = 'Cluster';
  if (type === 'LoadBalancer') spec.allocateLoadBalancerNodePorts ??= true;
}

const needsClusterIP = (service: Service) => service.spec?.type !== 'ExternalName';
const needsNodePorts = (service: Service) => {
  const type = service.spec?.type;
  return (
    type === 'NodePort' ||
    (type === 'LoadBalancer' && service.spec?.allocateLoadBalancerNodePorts !== false)
  );
};

/** patchAllocatedValues: an update that leaves out what was allocated keeps it. */
function keepAllocated(next: Service, current: Service): void {
  const spec = specOf(next);
  const old = current.spec ?? {};
  if (needsClusterIP(current) && needsClusterIP(next)) {
    const ip = spec.clusterIP ?? '';
    if (!spec.clusterIPs || spec.clusterIPs.length === 0) {
      if (ip !== '') spec.clusterIPs = [ip];
      else if (old.clusterIPs !== undefined) spec.clusterIPs = old.clusterIPs;
    }
    if (ip === '' && old.clusterIP !== undefined) spec.clusterIP = old.clusterIP;
    if (spec.ipFamilies === undefined && old.ipFamilies !== undefined)
      spec.ipFamilies = old.ipFamilies;
    if (spec.ipFamilyPolicy === undefined && old.ipFamilyPolicy !== undefined)
      spec.ipFamilyPolicy = old.ipFamilyPolicy;
  }
  if (needsNodePorts(current) && needsNodePorts(next)) {
    const oldPorts = old.ports ?? [];
    const ports = spec.ports ?? [];
    for (const port of ports) {
      if (port.nodePort) continue;
      const match =
        oldPorts.find((o) => o.port === port.port && o.protocol === port.protocol) ??
        (oldPorts.length === 1 && ports.length === 1 ? oldPorts[0] : undefined);
      if (match?.nodePort) port.nodePort = match.nodePort;
    }
  }
}

/**
 * Addresses and ports handed out in this process and maybe not yet stored, per storage (two
 * servers in one process keep their own): two creates racing never get the same one. An entry
 * is dropped after a minute.
 */
const pendingByStorage = new WeakMap<Storage, Map<string, number>>();
const PENDING_MS = 60_000;

function pendingOf(storage: Storage): Map<string, number> {
  let pending = pendingByStorage.get(storage);
  if (!pending) pendingByStorage.set(storage, (pending = new Map<string, number>()));
  return pending;
}

function isPending(pending: Map<string, number>, key: string): boolean {
  const until = pending.get(key);
  if (until === undefined) return false;
  if (until < Date.now()) {
    pending.delete(key);
    return false;
  }
  return true;
}

interface InUse {
  ips: Set<string>;
  nodePorts: Set<number>;
}

async function inUse(storage: Storage, prefix: string, except?: Service): Promise<InUse> {
  const { items } = await storage.list(prefix);
  const ips = new Set<string>();
  const nodePorts = new Set<number>();
  // Stored services were decoded and defaulted by this strategy before they were written.
  for (const item of items as Service[]) {
    if (except && item.metadata.uid === except.metadata.uid) continue;
    const spec = item.spec ?? {};
    for (const ip of spec.clusterIPs ?? [spec.clusterIP]) if (ip !== undefined) ips.add(ip);
    for (const port of spec.ports ?? [])
      if (port.nodePort !== undefined) nodePorts.add(port.nodePort);
  }
  return { ips, nodePorts };
}

function pick(
  taken: (n: number) => boolean,
  low: number,
  high: number,
  offset: number,
): number | undefined {
  // ipallocator/portallocator: a random free one above the offset, else below it.
  for (const [from, to] of [
    [low + offset, high],
    [low, low + offset - 1],
  ] as const) {
    const size = to - from + 1;
    const start = randomInt(size);
    for (let i = 0; i < size; i++) {
      const n = from + ((start + i) % size);
      if (!taken(n)) return n;
    }
  }
  return undefined;
}

function allocationError(service: Service, errors: FieldError[]): ApiError {
  return ApiError.invalid({ kind: 'Service' }, service.metadata.name ?? '', errors);
}

/**
 * The REST storage's allocations on create and update: a cluster IP (and clusterIPs, one IPv4
 * family, SingleStack) for every type but ExternalName, unless headless; node ports for NodePort
 * and LoadBalancer services. Unique among stored services; an address asked for must be free
 * and in the range (422, as kube words it).
 */
export async function allocateService(
  service: Service,
  context: { storage: Storage; prefix: string; dryRun: boolean; current?: Service },
): Promise<void> {
  const spec = specOf(service);
  const used = await inUse(context.storage, context.prefix, context.current);
  const pending = pendingOf(context.storage);
  const reserve = (key: string) => {
    if (!context.dryRun) pending.set(key, Date.now() + PENDING_MS);
  };
  if (!needsClusterIP(service)) {
    delete spec.clusterIP;
    delete spec.clusterIPs;
    delete spec.ipFamilies;
    delete spec.ipFamilyPolicy;
  } else {
    const asked = spec.clusterIP || spec.clusterIPs?.[0] || '';
    const unchanged =
      context.current !== undefined &&
      asked !== '' &&
      asked === (context.current.spec?.clusterIP ?? '');
    if (asked === 'None') {
      spec.clusterIP = 'None';
      spec.clusterIPs = ['None'];
    } else if (asked === '') {
      const n = pick(
        (candidate) => {
          const ip = numberToIp(candidate);
          return used.ips.has(ip) || isPending(pending, `ip:${ip}`);
        },
        CIDR_BASE + 1,
        CIDR_BASE + CIDR_SIZE - 2,
        IP_OFFSET,
      );
      if (n === undefined)
        throw ApiError.internalError('failed to allocate a serviceIP: range is full');
      const ip = numberToIp(n);
      reserve(`ip:${ip}`);
      spec.clusterIP = ip;
      spec.clusterIPs = [ip];
    } else if (!unchanged) {
      const field = 'spec.clusterIPs';
      const value = goSyntax.stringSlice([asked]);
      if (!IPV4.test(asked)) {
        throw allocationError(service, [
          fieldErrors.invalid(
            `${field}[0]`,
            asked,
            'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
          ),
        ]);
      }
      const n = ipToNumber(asked);
      if (n <= CIDR_BASE || n >= CIDR_BASE + CIDR_SIZE - 1)
        throw allocationError(service, [
          fieldErrors.invalid(
            field,
            value,
            `failed to allocate IP ${asked}: the provided IP (${asked}) is not in the valid range. The range of valid IPs is ${SERVICE_CIDR}`,
          ),
        ]);
      if (used.ips.has(asked) || isPending(pending, `ip:${asked}`))
        throw allocationError(service, [
          fieldErrors.invalid(
            field,
            value,
            `failed to allocate IP ${asked}: provided IP is already allocated`,
          ),
        ]);
      reserve(`ip:${asked}`);
      spec.clusterIP = asked;
      spec.clusterIPs = [asked];
    }
    spec.ipFamilies ??= ['IPv4'];
    spec.ipFamilyPolicy ??= 'SingleStack';
  }
  if (needsNodePorts(service)) {
    const own = new Set<number>();
    for (const port of spec.ports ?? []) {
      const asked = port.nodePort ?? 0;
      const kept = context.current?.spec?.ports?.some((p) => p.nodePort === asked) ?? false;
      if (asked !== 0) {
        if (!kept && (used.nodePorts.has(asked) || isPending(pending, `port:${asked}`))) {
          throw allocationError(service, [
            fieldErrors.invalid(
              'spec.ports[0].nodePort',
              asked,
              'provided port is already allocated',
            ),
          ]);
        }
        own.add(asked);
        continue;
      }
      const n = pick(
        (p) => used.nodePorts.has(p) || own.has(p) || isPending(pending, `port:${p}`),
        NODE_PORT_MIN,
        NODE_PORT_MAX,
        NODE_PORT_OFFSET,
      );
      if (n === undefined)
        throw ApiError.internalError('failed to allocate a nodePort: range is full');
      reserve(`port:${n}`);
      own.add(n);
      port.nodePort = n;
    }
  } else {
    for (const port of spec.ports ?? []) delete port.nodePort;
  }
}

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

/** ValidateService: ports, their names and numbers, type and session affinity. */
export function validateService(service: Service): FieldError[] {
  const errs: FieldError[] = [];
  const spec = service.spec ?? {};
  const type = spec.type ?? '';
  const headless = spec.clusterIP === 'None';
  const ports = spec.ports ?? [];
  if (ports.length === 0 && !headless && type !== 'ExternalName')
    errs.push(fieldErrors.required('spec.ports'));
  const names = new Set<string>();
  const keys = new Set<string>();
  ports.forEach((port, i) => {
    const at = `spec.ports[${i}]`;
    const name = port.name ?? '';
    if (ports.length > 1 && name === '') errs.push(fieldErrors.required(`${at}.name`));
    else if (name !== '') {
      for (const msg of isDNS1123Label(name))
        errs.push(fieldErrors.invalid(`${at}.name`, name, msg));
      if (names.has(name)) errs.push(fieldErrors.duplicate(`${at}.name`, name));
      names.add(name);
    }
    const number = port.port ?? 0;
    for (const msg of isValidPortNum(number))
      errs.push(fieldErrors.invalid(`${at}.port`, number, msg));
    const protocol = port.protocol ?? '';
    if (!['SCTP', 'TCP', 'UDP'].includes(protocol))
      errs.push(fieldErrors.notSupported(`${at}.protocol`, protocol, ['SCTP', 'TCP', 'UDP']));
    const target = port.targetPort;
    if (typeof target === 'number')
      for (const msg of isValidPortNum(target))
        errs.push(fieldErrors.invalid(`${at}.targetPort`, target, msg));
    else if (typeof target === 'string')
      for (const msg of isValidPortName(target))
        errs.push(fieldErrors.invalid(`${at}.targetPort`, target, msg));
    const nodePort = port.nodePort;
    if (nodePort !== undefined && nodePort !== 0 && !externallyAccessible(type))
      errs.push(
        fieldErrors.forbidden(`${at}.nodePort`, "may not be used when `type` is 'ClusterIP'"),
      );
    const key = `${number}/${protocol}`;
    if (keys.has(key))
      errs.push(
        fieldErrors.duplicate(
          at,
          goSyntax.raw(
            `core.ServicePort{Name:"", Protocol:${JSON.stringify(protocol)}, AppProtocol:(*string)(nil), Port:${number}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`,
          ),
        ),
      );
    keys.add(key);
  });
  if (!SERVICE_TYPES.includes(type))
    errs.push(fieldErrors.notSupported('spec.type', type, SERVICE_TYPES));
  const affinity = spec.sessionAffinity ?? '';
  if (affinity !== 'ClientIP' && affinity !== 'None')
    errs.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
  if (type === 'ExternalName' && !spec.externalName)
    errs.push(fieldErrors.required('spec.externalName'));
  return errs;
}

/** ValidateServiceUpdate: an allocated cluster IP may not change. */
function validateServiceUpdate(next: Service, current: Service): FieldError[] {
  if (!needsClusterIP(next) || !needsClusterIP(current)) return [];
  const old = current.spec?.clusterIPs;
  const now = next.spec?.clusterIPs;
  if (old && old.length > 0 && (old[0] ?? '') !== (now?.[0] ?? ''))
    return [
      fieldErrors.invalid(
        'spec.clusterIPs[0]',
        goSyntax.stringSlice(now),
        'may not change once set',
      ),
    ];
  return [];
}

export const serviceStrategy: ResourceStrategy<Service> = {
  decode: setServiceDefaults,
  validate: validateService,
  validateUpdate: validateServiceUpdate,
  // A new service has the empty status (LoadBalancer is a struct value: always written).
  prepareForCreate(service) {
    service.status = { loadBalancer: {} };
  },
  prepareForUpdate: keepAllocated,
  allocate: allocateService,
};
