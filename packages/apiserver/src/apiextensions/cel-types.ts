import { create, createFileRegistry } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
} from '@bufbuild/protobuf/wkt';

// The types Kubernetes' CEL libraries add (k8s.io/apiserver pkg/cel: kubernetes.Quantity,
// kubernetes.URL). cel-go has them as opaque types; @bufbuild/cel knows objects only as protobuf
// messages, so each is a message of the parts its library reads, equal when those are.

const field = (name: string, number: number, type: FieldDescriptorProto_Type) => ({
  name,
  number,
  type,
  label: FieldDescriptorProto_Label.OPTIONAL,
  jsonName: name,
});
const { STRING, INT32 } = FieldDescriptorProto_Type;

const file = create(FileDescriptorProtoSchema, {
  name: 'kubernetes/cel-types.proto',
  package: 'kubernetes',
  syntax: 'proto3',
  messageType: [
    // The exact value `value * 10^exp10`, `value` without trailing zeros.
    { name: 'Quantity', field: [field('value', 1, STRING), field('exp10', 2, INT32)] },
    {
      name: 'URL',
      field: ['scheme', 'opaque', 'user', 'host', 'path', 'rawPath', 'rawQuery', 'fragment'].map(
        (name, i) => field(name, i + 1, STRING),
      ),
    },
  ],
});

/** The registry of the CEL environment's Kubernetes types. */
export const celTypesRegistry = createFileRegistry(file, () => undefined);
