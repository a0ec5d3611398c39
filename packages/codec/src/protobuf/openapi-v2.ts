import { isRecord, openApiV2Messages, type ProtoMessageField } from '@listwatch/api';
import { WireWriter } from './wire.js';

// An OpenAPI v2 document in gnostic's protobuf form (openapi_v2.Document, the messages of
// @listwatch/api's generated/openapi-v2.ts): what kube-openapi serves to kubectl as
// application/com.github.proto-openapi.spec.v2@v1.0+protobuf. The JSON is mapped as gnostic's
// compiler (openapiv2/OpenAPIv2.go NewDocument) maps it: `$ref` is `_ref`, `x-` keys are
// vendor extensions, maps are lists of named values, values of any type (default, example,
// enum, extensions) are YAML text — JSON is YAML, and kube-openapi reads them with a YAML parser.

type Json = Record<string, unknown>;
type Proto = Record<string, unknown>;

const utf8 = new TextEncoder();

function fieldsOf(type: string): readonly ProtoMessageField[] {
  const fields = openApiV2Messages[type];
  if (!fields) throw new Error(`openapi_v2: no message ${type}`);
  return fields;
}

const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function anyOf(value: unknown): Proto {
  return { yaml: `${JSON.stringify(value)}\n` };
}

function vendorExtensions(json: Json): Proto[] {
  return Object.entries(json)
    .filter(([key]) => key.startsWith('x-'))
    .map(([name, value]) => ({ name, value: anyOf(value) }));
}

/** The named-value message of a map wrapper (Definitions → NamedSchema), if `type` is one. */
function mapWrapper(type: string): string | undefined {
  const fields = fieldsOf(type);
  const only = fields[0];
  return fields.length === 1 && only?.name === 'additional_properties' ? only.type : undefined;
}

function named(json: Json, namedType: string, skipExtensions = false): Proto[] {
  const valueType = fieldsOf(namedType).find((f) => f.name === 'value')?.type ?? 'string';
  return Object.entries(json)
    .filter(([key]) => !(skipExtensions && key.startsWith('x-')))
    .map(([name, value]) => ({ name, value: convert(valueType, value) }));
}

const NON_BODY: Readonly<Record<string, string>> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

const SECURITY: Readonly<Record<string, string>> = {
  basic: 'basic_authentication_security',
  apiKey: 'api_key_security',
  implicit: 'oauth2_implicit_security',
  password: 'oauth2_password_security',
  application: 'oauth2_application_security',
  accessCode: 'oauth2_access_code_security',
};

/** The proto object of `type` for a JSON value (undefined when there is nothing to write). */
function convert(type: string, json: unknown): unknown {
  if (!openApiV2Messages[type]) return json; // a scalar
  switch (type) {
    case 'Any':
      return anyOf(json);
    case 'TypeItem':
      return { value: Array.isArray(json) ? json : [json] };
    case 'ItemsItem':
      return { schema: (Array.isArray(json) ? json : [json]).map((s) => convert('Schema', s)) };
    case 'AdditionalPropertiesItem':
      return typeof json === 'boolean' ? { boolean: json } : { schema: convert('Schema', json) };
    case 'StringArray':
      return { value: json };
  }
  if (!isRecord(json)) return undefined;
  const wrapped = mapWrapper(type);
  if (wrapped) return { additional_properties: named(json, wrapped) };
  const ref = typeof json['$ref'] === 'string' ? json['$ref'] : undefined;
  switch (type) {
    case 'Paths':
      return { vendor_extension: vendorExtensions(json), path: named(json, 'NamedPathItem', true) };
    case 'Responses':
      return {
        response_code: named(json, 'NamedResponseValue', true),
        vendor_extension: vendorExtensions(json),
      };
    case 'ParametersItem':
      return ref !== undefined
        ? { json_reference: convert('JsonReference', json) }
        : { parameter: convert('Parameter', json) };
    case 'ResponseValue':
      return ref !== undefined
        ? { json_reference: convert('JsonReference', json) }
        : { response: convert('Response', json) };
    case 'Parameter':
      return json['in'] === 'body'
        ? { body_parameter: convert('BodyParameter', json) }
        : { non_body_parameter: convert('NonBodyParameter', json) };
    case 'NonBodyParameter': {
      const field = NON_BODY[String(json['in'])];
      if (!field) return undefined;
      const sub = fieldsOf(type).find((f) => f.name === field);
      return sub ? { [field]: convert(sub.type, json) } : undefined;
    }
    case 'SchemaItem':
      return json['type'] === 'file'
        ? { file_schema: convert('FileSchema', json) }
        : { schema: convert('Schema', json) };
    case 'SecurityDefinitionsItem': {
      const field = SECURITY[String(json['type'] === 'oauth2' ? json['flow'] : json['type'])];
      if (!field) return undefined;
      const sub = fieldsOf(type).find((f) => f.name === field);
      return sub ? { [field]: convert(sub.type, json) } : undefined;
    }
  }
  const out: Proto = {};
  for (const field of fieldsOf(type)) {
    if (field.name === 'vendor_extension') {
      out[field.name] = vendorExtensions(json);
      continue;
    }
    const value = json[field.name === '_ref' ? '$ref' : camel(field.name)];
    if (value === undefined || value === null) continue;
    out[field.name] =
      field.repeated && Array.isArray(value)
        ? value.map((v) => convert(field.type, v))
        : convert(field.type, value);
  }
  return out;
}

function writeValue(w: WireWriter, field: ProtoMessageField, value: unknown): void {
  const { number, type } = field;
  switch (type) {
    case 'string':
      if (typeof value === 'string' && (value !== '' || field.oneof)) {
        w.bytes(number, utf8.encode(value));
      }
      return;
    case 'bool':
      if (typeof value === 'boolean' && (value || field.oneof)) {
        w.tag(number, 0);
        w.uint32(value ? 1 : 0);
      }
      return;
    case 'int64':
      if (typeof value === 'number' && Number.isInteger(value) && value !== 0) {
        w.tag(number, 0);
        w.int64(value);
      }
      return;
    case 'double':
      if (typeof value === 'number' && value !== 0) w.fixed64(number, value);
      return;
  }
  if (!openApiV2Messages[type] || !isRecord(value)) return;
  const inner = new WireWriter();
  encodeInto(inner, type, value);
  w.bytes(number, inner.finish());
}

function encodeInto(w: WireWriter, type: string, proto: Proto): void {
  const fields = [...fieldsOf(type)].sort((a, b) => a.number - b.number);
  for (const field of fields) {
    const value = proto[field.name];
    if (value === undefined) continue;
    if (field.repeated) {
      if (Array.isArray(value)) for (const item of value) writeValue(w, field, item);
    } else writeValue(w, field, value);
  }
}

/** An OpenAPI v2 document (JSON) as gnostic's openapi_v2.Document message. */
export function encodeOpenApiV2Protobuf(document: unknown): Uint8Array {
  const w = new WireWriter(1 << 16);
  encodeInto(w, 'Document', (convert('Document', document) as Proto | undefined) ?? {});
  return w.finish();
}
