import { ApiError } from '@listwatch/api';
import { isZero, readFields, type WireField } from './protobuf-reader.js';

// Request bodies in application/vnd.kubernetes.protobuf. kubectl's typed clients send them:
// `kubectl create namespace|configmap|secret|role|rolebinding|serviceaccount|token` POST protobuf, with no JSON
// fallback. The body is the `k8s\0` magic and a runtime.Unknown (k8s.io/apimachinery
// runtime/serializer/protobuf) whose `raw` is the object, as k8s.io/api's generated.proto numbers
// its fields. Only the kinds those commands create are described; the result is the object as
// its JSON would read.

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

type Scalar = 'string' | 'bytes' | 'int' | 'bool' | 'time';
type FieldType = Scalar | { message: Message } | { map: 'string' | 'bytes' };

interface Field {
  name: string;
  type: FieldType;
  repeated?: true;
  /** A Go pointer (`*bool`): present means set, even to its zero value. */
  pointer?: true;
}

type Message = Readonly<Record<number, Field>>;

const s = (name: string): Field => ({ name, type: 'string' });

const OWNER_REFERENCE: Message = {
  1: s('kind'),
  3: s('name'),
  4: s('uid'),
  5: s('apiVersion'),
  6: { name: 'controller', type: 'bool', pointer: true },
  7: { name: 'blockOwnerDeletion', type: 'bool', pointer: true },
};

const OBJECT_META: Message = {
  1: s('name'),
  2: s('generateName'),
  3: s('namespace'),
  4: s('selfLink'),
  5: s('uid'),
  6: s('resourceVersion'),
  7: { name: 'generation', type: 'int' },
  8: { name: 'creationTimestamp', type: 'time' },
  9: { name: 'deletionTimestamp', type: 'time' },
  10: { name: 'deletionGracePeriodSeconds', type: 'int', pointer: true },
  11: { name: 'labels', type: { map: 'string' } },
  12: { name: 'annotations', type: { map: 'string' } },
  13: { name: 'ownerReferences', type: { message: OWNER_REFERENCE }, repeated: true },
  14: { name: 'finalizers', type: 'string', repeated: true },
};

const metadata: Field = { name: 'metadata', type: { message: OBJECT_META } };

const OBJECT_REFERENCE: Message = {
  1: s('kind'),
  2: s('namespace'),
  3: s('name'),
  4: s('uid'),
  5: s('apiVersion'),
  6: s('resourceVersion'),
  7: s('fieldPath'),
};

// The access reviews `kubectl auth can-i` and `auth whoami` send (authorization/v1 and
// authentication/v1 generated.proto); only their specs matter, the status is the server's.
const RESOURCE_ATTRIBUTES: Message = {
  1: s('namespace'),
  2: s('verb'),
  3: s('group'),
  4: s('version'),
  5: s('resource'),
  6: s('subresource'),
  7: s('name'),
};
const NON_RESOURCE_ATTRIBUTES: Message = { 1: s('path'), 2: s('verb') };
const ACCESS_REVIEW_SPEC: Message = {
  1: { name: 'resourceAttributes', type: { message: RESOURCE_ATTRIBUTES } },
  2: { name: 'nonResourceAttributes', type: { message: NON_RESOURCE_ATTRIBUTES } },
};
// Go's marshaller writes the (empty) status too.
const ACCESS_REVIEW_STATUS: Field = {
  name: 'status',
  type: {
    message: {
      1: { name: 'allowed', type: 'bool' },
      2: s('reason'),
      3: s('evaluationError'),
      4: { name: 'denied', type: 'bool' },
    },
  },
};

// rbac/v1, as `kubectl create role|clusterrole|rolebinding|clusterrolebinding` send them.
const strings = (name: string): Field => ({ name, type: 'string', repeated: true });
const POLICY_RULE: Message = {
  1: strings('verbs'),
  2: strings('apiGroups'),
  3: strings('resources'),
  4: strings('resourceNames'),
  5: strings('nonResourceURLs'),
};
const rules: Field = { name: 'rules', type: { message: POLICY_RULE }, repeated: true };
const LABEL_SELECTOR: Message = {
  1: { name: 'matchLabels', type: { map: 'string' } },
  2: {
    name: 'matchExpressions',
    type: { message: { 1: s('key'), 2: s('operator'), 3: strings('values') } },
    repeated: true,
  },
};
const BINDING: Message = {
  1: metadata,
  2: {
    name: 'subjects',
    type: { message: { 1: s('kind'), 2: s('apiGroup'), 3: s('name'), 4: s('namespace') } },
    repeated: true,
  },
  3: { name: 'roleRef', type: { message: { 1: s('apiGroup'), 2: s('kind'), 3: s('name') } } },
};

/** The kinds decoded, by `apiVersion/kind`. */
const KINDS: Readonly<Record<string, Message>> = {
  'v1/Namespace': {
    1: metadata,
    2: {
      name: 'spec',
      type: { message: { 1: { name: 'finalizers', type: 'string', repeated: true } } },
    },
    3: { name: 'status', type: { message: { 1: s('phase') } } },
  },
  'v1/ConfigMap': {
    1: metadata,
    2: { name: 'data', type: { map: 'string' } },
    3: { name: 'binaryData', type: { map: 'bytes' } },
    4: { name: 'immutable', type: 'bool', pointer: true },
  },
  'authorization.k8s.io/v1/SelfSubjectAccessReview': {
    1: metadata,
    2: { name: 'spec', type: { message: ACCESS_REVIEW_SPEC } },
    3: ACCESS_REVIEW_STATUS,
  },
  'authorization.k8s.io/v1/SubjectAccessReview': {
    1: metadata,
    2: {
      name: 'spec',
      type: {
        message: {
          ...ACCESS_REVIEW_SPEC,
          3: s('user'),
          4: { name: 'groups', type: 'string', repeated: true },
          6: s('uid'),
        },
      },
    },
    3: ACCESS_REVIEW_STATUS,
  },
  'authorization.k8s.io/v1/SelfSubjectRulesReview': {
    1: metadata,
    2: { name: 'spec', type: { message: { 1: s('namespace') } } },
    3: {
      name: 'status',
      type: {
        message: { 3: { name: 'incomplete', type: 'bool' }, 4: s('evaluationError') },
      },
    },
  },
  'authentication.k8s.io/v1/SelfSubjectReview': {
    1: metadata,
    2: {
      name: 'status',
      type: {
        message: {
          1: {
            name: 'userInfo',
            type: {
              message: {
                1: s('username'),
                2: s('uid'),
                3: { name: 'groups', type: 'string', repeated: true },
              },
            },
          },
        },
      },
    },
  },
  'rbac.authorization.k8s.io/v1/Role': { 1: metadata, 2: rules },
  'rbac.authorization.k8s.io/v1/ClusterRole': {
    1: metadata,
    2: rules,
    3: {
      name: 'aggregationRule',
      type: {
        message: {
          1: { name: 'clusterRoleSelectors', type: { message: LABEL_SELECTOR }, repeated: true },
        },
      },
    },
  },
  'rbac.authorization.k8s.io/v1/RoleBinding': BINDING,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': BINDING,
  'v1/Secret': {
    1: metadata,
    2: { name: 'data', type: { map: 'bytes' } },
    3: s('type'),
    4: { name: 'stringData', type: { map: 'string' } },
    5: { name: 'immutable', type: 'bool', pointer: true },
  },
  // `kubectl create serviceaccount` and `kubectl create token` (core/v1, authentication/v1).
  'v1/ServiceAccount': {
    1: metadata,
    2: { name: 'secrets', type: { message: OBJECT_REFERENCE }, repeated: true },
    3: { name: 'imagePullSecrets', type: { message: { 1: s('name') } }, repeated: true },
    4: { name: 'automountServiceAccountToken', type: 'bool', pointer: true },
  },
  'authentication.k8s.io/v1/TokenRequest': {
    1: metadata,
    2: {
      name: 'spec',
      type: {
        message: {
          1: { name: 'audiences', type: 'string', repeated: true },
          3: {
            name: 'boundObjectRef',
            type: { message: { 1: s('kind'), 2: s('apiVersion'), 3: s('name'), 4: s('uid') } },
          },
          4: { name: 'expirationSeconds', type: 'int', pointer: true },
        },
      },
    },
    3: {
      name: 'status',
      type: { message: { 1: s('token'), 2: { name: 'expirationTimestamp', type: 'time' } } },
    },
  },
};

const TYPE_META: Message = { 1: s('apiVersion'), 2: s('kind') };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function badBody(message: string): ApiError {
  return ApiError.badRequest(`error decoding the protobuf body: ${message}`);
}

function text(field: WireField): string {
  if (field.wireType !== 2) throw badBody(`field ${field.field} is not length-delimited`);
  try {
    return utf8.decode(field.value);
  } catch {
    throw badBody(`field ${field.field} is not UTF-8`);
  }
}

function bytesOf(field: WireField): Uint8Array {
  if (field.wireType !== 2) throw badBody(`field ${field.field} is not length-delimited`);
  return field.value;
}

function varint(field: WireField): bigint {
  if (field.wireType !== 0) throw badBody(`field ${field.field} is not a varint`);
  return field.value;
}

/** metav1.Time: seconds and nanos since the epoch, as RFC 3339 in UTC (second precision). */
function time(bytes: Uint8Array): string | undefined {
  let seconds = 0n;
  for (const f of readFields(bytes)) if (f.field === 1) seconds = BigInt.asIntN(64, varint(f));
  if (seconds === 0n) return undefined;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function scalar(type: Scalar, field: WireField): unknown {
  switch (type) {
    case 'string':
      return text(field);
    case 'bytes':
      return Buffer.from(bytesOf(field)).toString('base64');
    case 'int':
      return Number(BigInt.asIntN(64, varint(field)));
    case 'bool':
      return varint(field) !== 0n;
    case 'time':
      return time(bytesOf(field));
  }
}

/** A value is left out of the JSON when Go's `omitempty` would leave it out. */
function omitted(value: unknown): boolean {
  return value === undefined || value === '' || value === 0 || value === false;
}

function decodeMessage(bytes: Uint8Array, message: Message, path: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const field of readFields(bytes)) {
    const spec = message[field.field];
    if (!spec) {
      // gogo writes every plain field; an unset one we do not know costs nothing.
      if (isZero(field)) continue;
      throw new ApiError({
        code: 415,
        reason: 'UnsupportedMediaType',
        message: `the protobuf body sets field ${field.field} of ${path}, which this server does not decode: send it as application/json`,
      });
    }
    const { name, type } = spec;
    let value: unknown;
    if (typeof type === 'string') value = scalar(type, field);
    else if ('message' in type)
      value = decodeMessage(bytesOf(field), type.message, `${path}.${name}`);
    else {
      // A map entry: key = 1, value = 2.
      const entry = decodeMessage(
        bytesOf(field),
        { 1: s('key'), 2: { name: 'value', type: type.map } },
        `${path}.${name}`,
      );
      const map = (out[name] ??= {}) as Record<string, unknown>;
      // defineProperty: a `__proto__` key is data, as in JSON.parse, not the prototype.
      Object.defineProperty(map, typeof entry['key'] === 'string' ? entry['key'] : '', {
        value: entry['value'] ?? '',
        enumerable: true,
        writable: true,
        configurable: true,
      });
      continue;
    }
    if (spec.repeated) {
      ((out[name] ??= []) as unknown[]).push(value);
    } else if (spec.pointer ? value !== undefined : !omitted(value)) {
      out[name] = value;
    }
  }
  return out;
}

/** Decodes a Kubernetes protobuf request body into the object its JSON would be. */
export function decodeKubeProtobuf(body: Uint8Array): Record<string, unknown> {
  if (body.length < MAGIC.length || MAGIC.some((b, i) => body[i] !== b)) {
    throw badBody('the body does not start with the k8s\\x00 prefix');
  }
  // runtime.Unknown: typeMeta = 1, raw = 2, contentEncoding = 3, contentType = 4.
  let typeMeta: { apiVersion?: unknown; kind?: unknown } = {};
  let raw: Uint8Array = new Uint8Array();
  for (const field of readFields(body.subarray(MAGIC.length))) {
    if (field.field === 1) typeMeta = decodeMessage(bytesOf(field), TYPE_META, 'TypeMeta');
    else if (field.field === 2) raw = bytesOf(field);
    else if (field.field === 3 && text(field) !== '')
      throw badBody(`unsupported content encoding ${JSON.stringify(text(field))}`);
  }
  const apiVersion = typeof typeMeta.apiVersion === 'string' ? typeMeta.apiVersion : '';
  const kind = typeof typeMeta.kind === 'string' ? typeMeta.kind : '';
  const message = KINDS[`${apiVersion}/${kind}`];
  if (!message) {
    throw new ApiError({
      code: 415,
      reason: 'UnsupportedMediaType',
      message: `the server decodes protobuf bodies of Namespace, ConfigMap, Secret, ServiceAccount, TokenRequest, the RBAC kinds and the access reviews only, not ${kind || 'this kind'}: send it as application/json`,
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: PROTOBUF_MEDIA_TYPE }] },
    });
  }
  return { apiVersion, kind, ...decodeMessage(raw, message, kind) };
}
