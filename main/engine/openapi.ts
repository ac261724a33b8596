// The OpenAPI 3.1 document of the control API, from the route table and the shared schemas.
import { z } from 'zod';
import { AGENT_TYPES, agentTypes } from '../../shared/agents';
import { sectionJsonSchema } from '../../shared/config/jsonSchema';
import { DEFAULT_ENGINE_URL, problemDetailsSchema } from '../../shared/controlApi';
import { routes } from '../../shared/controlApiRoutes';

type Json = Record<string, unknown>;

const schemaOf = (s: z.ZodType, io: 'input' | 'output'): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Json;
  return rest;
};

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

/** The spec's PUT bodies: the inner object is the agent type's own. */
function wrappedSection(key: 'hostCredentials' | 'configuration'): Json {
  return {
    type: 'object',
    required: [key],
    additionalProperties: false,
    properties: { [key]: { oneOf: AGENT_TYPES.map((t) => ({ $ref: `#/components/schemas/${t}.${key}` })) } },
  };
}

export function openApiDocument(): Json {
  const paths: Record<string, Json> = {};
  for (const [operationId, r] of Object.entries(routes)) {
    const params = [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    let body: Json | undefined;
    if (operationId === 'putCredentials') body = wrappedSection('hostCredentials');
    else if (operationId === 'putSpecific') body = wrappedSection('configuration');
    else if ('body' in r && r.body) body = schemaOf(r.body, 'input');
    const success =
      r.status === 204
        ? { description: 'Done.' }
        : 'binary' in r
          ? { description: 'OK', content: { [r.binary]: { schema: { type: 'string', format: 'binary' } } } }
          : 'stream' in r
            ? {
                description: 'Server-sent events; each `data:` line is one message of this schema, as JSON.',
                content: { 'text/event-stream': { schema: schemaOf(r.stream, 'output') } },
              }
            : {
                description: 'OK',
                content: {
                  'application/json': {
                    schema: 'response' in r && r.response ? schemaOf(r.response, 'output') : {},
                  },
                },
              };
    paths[r.path] = {
      ...paths[r.path],
      [r.method.toLowerCase()]: {
        operationId,
        summary: r.summary,
        parameters: params,
        ...(body && { requestBody: { required: true, content: { 'application/json': { schema: body } } } }),
        responses: {
          [r.status]: success,
          ...(body && {
            400: problemResponse('Malformed JSON.'),
            413: problemResponse('Body too large.'),
            415: problemResponse('Not JSON.'),
            422: problemResponse('Invalid values, one entry per field.'),
          }),
          401: problemResponse('Missing or wrong token.'),
          404: problemResponse('Unknown pipeline, agent or type.'),
          409: problemResponse('Conflicts with the current state.'),
        },
      },
    };
  }
  const sections: Record<string, Json> = {};
  for (const t of AGENT_TYPES) {
    for (const s of Object.values(agentTypes[t].sections)) {
      const { $schema: _drop, ...rest } = sectionJsonSchema(s);
      sections[`${t}.${s.id}`] = rest;
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Sync engine control API',
      version: '1.0.0',
      description:
        'Configures the source agents of a sync engine (source-agents.md, decisions.md). Errors are RFC 9457 problem details.',
    },
    servers: [{ url: DEFAULT_ENGINE_URL }],
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A bare token without "Bearer " is accepted too.',
        },
      },
      schemas: { Problem: schemaOf(problemDetailsSchema, 'output'), ...sections },
    },
  };
}
