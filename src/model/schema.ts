// The JSON schema of model files, generated from the format definition the reader checks
// against (format.ts), so VS Code's own JSON support (completion, descriptions) and the reader
// cannot drift apart. Written to schemas/ffn-model.schema.json at build time.
import { CHECKPOINT_FIELDS, MODEL_FIELDS, type FieldSpec, type Fields } from './format';

type Schema = Record<string, unknown>;

function fieldSchema(f: FieldSpec): Schema {
  const base: Schema = { description: f.description, markdownDescription: f.description };
  if (f.default !== undefined) base.default = f.default;
  switch (f.type) {
    case 'integer': return { ...base, type: 'integer', ...bounds(f) };
    case 'number': return { ...base, type: 'number', ...(f.exclusiveMinimum !== undefined ? { exclusiveMinimum: f.exclusiveMinimum } : {}), ...bounds(f) };
    case 'boolean': return { ...base, type: 'boolean' };
    case 'string': return { ...base, type: 'string' };
    case 'enum': return { ...base, type: 'string', enum: [...(f.values ?? [])] };
    case 'vector': return { ...base, type: 'array', items: { type: 'number' } };
    case 'matrix': return { ...base, type: 'array', items: { type: 'array', items: { type: 'number' } } };
    case 'strings': return { ...base, type: 'array', items: { type: 'string' } };
    case 'integers': return { ...base, type: 'array', items: { type: 'integer', minimum: 0 } };
    case 'map': return {
      ...base, type: 'object',
      additionalProperties: f.mapOf === 'object' ? objectSchema(f.fields ?? {})
        : f.mapOf === 'number' ? { type: 'number' } : { anyOf: [{ type: 'number' }, { type: 'array', items: { type: 'number' } }] },
    };
    case 'positions': return { ...base, anyOf: [{ type: 'string', enum: ['all', 'last'] }, { type: 'array', items: { type: 'integer', minimum: 0 } }] };
    case 'object': return { ...base, ...objectSchema(f.fields ?? {}) };
    case 'objects': return { ...base, type: 'array', items: objectSchema(f.fields ?? {}) };
  }
}

function bounds(f: FieldSpec): Schema {
  return { ...(f.minimum !== undefined ? { minimum: f.minimum } : {}), ...(f.maximum !== undefined ? { maximum: f.maximum } : {}) };
}

function objectSchema(fields: Fields): Schema {
  const required = Object.entries(fields).filter(([, f]) => f.required).map(([k]) => k);
  return {
    type: 'object',
    properties: Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, fieldSchema(f)])),
    ...(required.length ? { required } : {}),
  };
}

export function modelJsonSchema(): Schema {
  // inline weights, or a checkpoint's (their keys together; the reader says which go together)
  const root = objectSchema({ ...MODEL_FIELDS, ...CHECKPOINT_FIELDS });
  root.required = ['version'];
  (root.properties as Record<string, Schema>).version = { ...(root.properties as Record<string, Schema>).version, const: 1, enum: [1] };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://ffn-lens/schemas/ffn-model.schema.json',
    title: 'FFN Lens model file, version 1',
    description: 'Token vectors and the weights of a transformer block: attention, a feed-forward network, layer norms and a prediction head.',
    // VS Code's JSON support: comments and trailing commas are part of the format
    allowComments: true,
    allowTrailingCommas: true,
    ...root,
  };
}
