// An ONNX model written at bench time: the few messages of onnx.proto a forward needs (field
// numbers as onnx/onnx.proto has them), encoded with protobufjs (onnxruntime-web's own
// dependency), and a small graph builder over them. Only what bench/onnxGpt2.ts uses.
import * as protobuf from 'protobufjs';

const ONNX_PROTO = `syntax = "proto3"; package onnx;
message TensorProto { repeated int64 dims = 1; int32 data_type = 2; repeated int64 int64_data = 7; string name = 8; bytes raw_data = 9; }
message AttributeProto { string name = 1; float f = 2; int64 i = 3; bytes s = 4; repeated int64 ints = 8; int32 type = 20; }
message NodeProto { repeated string input = 1; repeated string output = 2; string name = 3; string op_type = 4; repeated AttributeProto attribute = 5; string domain = 7; }
message Dimension { int64 dim_value = 1; string dim_param = 2; }
message TensorShapeProto { repeated Dimension dim = 1; }
message TensorTypeProto { int32 elem_type = 1; TensorShapeProto shape = 2; }
message TypeProto { TensorTypeProto tensor_type = 1; }
message ValueInfoProto { string name = 1; TypeProto type = 2; }
message GraphProto { repeated NodeProto node = 1; string name = 2; repeated TensorProto initializer = 5; repeated ValueInfoProto input = 11; repeated ValueInfoProto output = 12; }
message OperatorSetIdProto { string domain = 1; int64 version = 2; }
message ModelProto { int64 ir_version = 1; string producer_name = 2; GraphProto graph = 7; repeated OperatorSetIdProto opset_import = 8; }`;

/** TensorProto.DataType */
const FLOAT = 1;
const INT64 = 7;
/** AttributeProto.AttributeType */
const A_FLOAT = 1, A_INT = 2, A_STRING = 3, A_INTS = 7;

type Attr = number | string | number[];
interface Node { input: string[]; output: string[]; opType: string; attribute: object[] }

/** A graph under construction: nodes, float/int64 initializers, float inputs/outputs of known shapes. */
export class OnnxGraph {
  private readonly nodes: Node[] = [];
  private readonly inits: object[] = [];
  private readonly inputs: object[] = [];
  private readonly outputs: object[] = [];
  private n = 0;

  /** A float32 initializer (its bytes as they are: no copy until encoding). */
  weight(name: string, data: Float32Array, dims: number[]): string {
    this.inits.push({ name, dims, dataType: FLOAT, rawData: new Uint8Array(data.buffer, data.byteOffset, data.byteLength) });
    return name;
  }

  ints(name: string, values: number[]): string {
    this.inits.push({ name, dims: [values.length], dataType: INT64, int64Data: values });
    return name;
  }

  scalar(name: string, v: number): string {
    return this.weight(name, new Float32Array([v]), []);
  }

  input(name: string, dims: number[], elemType: 'float' | 'int64' = 'float'): string {
    this.inputs.push(valueInfo(name, dims, elemType === 'float' ? FLOAT : INT64));
    return name;
  }

  /** Marks a value as a graph output: onnxruntime hands it back (a stage kept). */
  output(name: string, dims: number[]): string {
    this.outputs.push(valueInfo(name, dims, FLOAT));
    return name;
  }

  /** One node; its output named `out` or a fresh name. */
  op(opType: string, inputs: string[], attrs: Record<string, Attr> = {}, out?: string): string {
    const o = out ?? `t${this.n++}`;
    const attribute = Object.entries(attrs).map(([name, v]) =>
      typeof v === 'string' ? { name, type: A_STRING, s: new TextEncoder().encode(v) }
        : Array.isArray(v) ? { name, type: A_INTS, ints: v }
          : Number.isInteger(v) && name !== 'epsilon' && name !== 'alpha' ? { name, type: A_INT, i: v } : { name, type: A_FLOAT, f: v });
    this.nodes.push({ input: inputs, output: [o], opType, attribute });
    return o;
  }

  /** The model's bytes (opset `opset`, IR version 8). */
  encode(opset: number): Uint8Array {
    const root = protobuf.parse(ONNX_PROTO).root;
    const Model = root.lookupType('onnx.ModelProto');
    const msg = {
      irVersion: 8, producerName: 'ffn-lens-bench', opsetImport: [{ domain: '', version: opset }],
      graph: { name: 'g', node: this.nodes, initializer: this.inits, input: this.inputs, output: this.outputs },
    };
    return Model.encode(msg).finish(); // (a plain object: fromObject would walk every byte array)
  }
}

function valueInfo(name: string, dims: number[], elemType: number): object {
  return { name, type: { tensorType: { elemType, shape: { dim: dims.map((d) => ({ dimValue: d })) } } } };
}
