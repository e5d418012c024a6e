/**
 * The part of the OTLP export messages the tests read, declared with protobufjs's reflection API
 * from the field numbers of the OTLP specification (https://opentelemetry.io/docs/specs/otlp/,
 * opentelemetry-proto's `trace/v1`, `metrics/v1`, `common/v1`, `resource/v1`). Fields the tests
 * do not read are left out: protobuf decoding skips unknown fields.
 */
import protobuf, { type Type } from 'protobufjs';

const { Field, OneOf, Root, Type: MessageType } = protobuf;

type FieldSpec = readonly [name: string, id: number, type: string, rule?: 'repeated'];

function message(name: string, fields: readonly FieldSpec[]): protobuf.Type {
  const type = new MessageType(name);
  for (const [fieldName, id, fieldType, rule] of fields) type.add(new Field(fieldName, id, fieldType, rule));
  return type;
}

function build(): { traces: Type; metrics: Type } {
  const anyValue = message('AnyValue', [
    ['stringValue', 1, 'string'],
    ['boolValue', 2, 'bool'],
    ['intValue', 3, 'int64'],
    ['doubleValue', 4, 'double'],
    ['arrayValue', 5, 'ArrayValue'],
  ]);
  anyValue.add(new OneOf('value', ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue']));
  const root = new Root().add(
    new protobuf.Namespace('otlp').add(anyValue).addJSON({
      ArrayValue: { fields: { values: { rule: 'repeated', type: 'AnyValue', id: 1 } } },
    }),
  );
  const types: protobuf.Type[] = [
    message('KeyValue', [
      ['key', 1, 'string'],
      ['value', 2, 'AnyValue'],
    ]),
    message('Resource', [['attributes', 1, 'KeyValue', 'repeated']]),
    message('InstrumentationScope', [
      ['name', 1, 'string'],
      ['version', 2, 'string'],
    ]),
    message('Status', [
      ['message', 2, 'string'],
      ['code', 3, 'int32'],
    ]),
    message('Span', [
      ['traceId', 1, 'bytes'],
      ['spanId', 2, 'bytes'],
      ['parentSpanId', 4, 'bytes'],
      ['name', 5, 'string'],
      ['kind', 6, 'int32'],
      ['attributes', 9, 'KeyValue', 'repeated'],
      ['status', 15, 'Status'],
    ]),
    message('ScopeSpans', [
      ['scope', 1, 'InstrumentationScope'],
      ['spans', 2, 'Span', 'repeated'],
    ]),
    message('ResourceSpans', [
      ['resource', 1, 'Resource'],
      ['scopeSpans', 2, 'ScopeSpans', 'repeated'],
    ]),
    message('ExportTraceServiceRequest', [['resourceSpans', 1, 'ResourceSpans', 'repeated']]),
    message('NumberDataPoint', [
      ['asDouble', 4, 'double'],
      ['asInt', 6, 'sfixed64'],
      ['attributes', 7, 'KeyValue', 'repeated'],
    ]),
    message('HistogramDataPoint', [
      ['count', 4, 'fixed64'],
      ['sum', 5, 'double'],
      ['attributes', 9, 'KeyValue', 'repeated'],
    ]),
    message('Gauge', [['dataPoints', 1, 'NumberDataPoint', 'repeated']]),
    message('Sum', [['dataPoints', 1, 'NumberDataPoint', 'repeated']]),
    message('Histogram', [['dataPoints', 1, 'HistogramDataPoint', 'repeated']]),
    message('Metric', [
      ['name', 1, 'string'],
      ['description', 2, 'string'],
      ['unit', 3, 'string'],
      ['gauge', 5, 'Gauge'],
      ['sum', 7, 'Sum'],
      ['histogram', 9, 'Histogram'],
    ]),
    message('ScopeMetrics', [
      ['scope', 1, 'InstrumentationScope'],
      ['metrics', 2, 'Metric', 'repeated'],
    ]),
    message('ResourceMetrics', [
      ['resource', 1, 'Resource'],
      ['scopeMetrics', 2, 'ScopeMetrics', 'repeated'],
    ]),
    message('ExportMetricsServiceRequest', [['resourceMetrics', 1, 'ResourceMetrics', 'repeated']]),
  ];
  const namespace = root.lookup('otlp') as protobuf.Namespace;
  for (const type of types) namespace.add(type);
  root.resolveAll();
  return {
    traces: root.lookupType('otlp.ExportTraceServiceRequest'),
    metrics: root.lookupType('otlp.ExportMetricsServiceRequest'),
  };
}

let built: { traces: Type; metrics: Type } | undefined;

/** The export request types, built once. */
export const otlpTypes = (): { traces: Type; metrics: Type } => (built ??= build());
