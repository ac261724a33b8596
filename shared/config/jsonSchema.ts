// JSON Schema of a configuration object, from the same declarations: titles and descriptions from the
// field labels and help, secrets `writeOnly` (accepted in requests, never answered).
import { z } from 'zod';
import { fieldsOf } from './parse';
import type { Section } from './section';

export type JsonSchema = Record<string, unknown>;

export function sectionJsonSchema(section: Section): JsonSchema {
  const schema = z.toJSONSchema(section.schema, { io: 'input' }) as JsonSchema & {
    properties: Record<string, JsonSchema>;
  };
  schema.title = section.title;
  schema.description = section.description;
  for (const { key, meta } of fieldsOf(section)) {
    const property = schema.properties[key];
    if (!property) continue;
    property.title = meta.label;
    property.description = meta.help;
    if (meta.kind === 'secret') property.writeOnly = true;
  }
  return schema;
}
