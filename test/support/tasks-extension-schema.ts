/**
 * The wire shapes of the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) as JSON
 * Schema, for Ajv: written from the extension's published types (`Task`, the `DetailedTask`
 * variants, `CreateTaskResult`, `GetTaskResult`, the empty acknowledgements,
 * `TaskStatusNotification`), plus what its text forbids that its types cannot say (a
 * `CreateTaskResult` carries no `result`, `error`, `inputRequests` or `requestState`, nor the
 * 2025-11-25 names `ttl` and `pollInterval`).
 *
 * The extension's own generated schema (`schema/draft/schema.json` of the public repository
 * `modelcontextprotocol/ext-tasks`, not published to npm) is used as well when
 * `EXT_TASKS_SCHEMA` names a copy of it: every shape is then checked against both.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

const STATUSES = ['working', 'input_required', 'completed', 'failed', 'cancelled'];
const ISO_8601 = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}';

const task = {
  type: 'object',
  required: ['taskId', 'status', 'createdAt', 'lastUpdatedAt', 'ttlMs'],
  properties: {
    taskId: { type: 'string', minLength: 1 },
    status: { enum: STATUSES },
    statusMessage: { type: 'string' },
    createdAt: { type: 'string', pattern: ISO_8601 },
    lastUpdatedAt: { type: 'string', pattern: ISO_8601 },
    ttlMs: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
    pollIntervalMs: { type: 'integer', minimum: 1 },
  },
  not: { anyOf: [{ required: ['ttl'] }, { required: ['pollInterval'] }, { required: ['requestState'] }] },
};

const inputRequest = {
  type: 'object',
  required: ['method', 'params'],
  properties: {
    method: { enum: ['elicitation/create', 'sampling/createMessage', 'roots/list'] },
    params: { type: 'object' },
  },
};

const jsonRpcError = {
  type: 'object',
  required: ['code', 'message'],
  properties: { code: { type: 'integer' }, message: { type: 'string' } },
};

const detailedTask = {
  allOf: [
    task,
    {
      oneOf: [
        {
          properties: { status: { const: 'working' } },
          not: { anyOf: [{ required: ['result'] }, { required: ['error'] }, { required: ['inputRequests'] }] },
        },
        {
          properties: {
            status: { const: 'input_required' },
            inputRequests: { type: 'object', minProperties: 1, additionalProperties: inputRequest },
          },
          required: ['inputRequests'],
        },
        {
          properties: {
            status: { const: 'completed' },
            result: {
              type: 'object',
              required: ['content'],
              properties: {
                content: { type: 'array' },
                _meta: { not: { required: ['io.modelcontextprotocol/related-task'] } },
              },
            },
          },
          required: ['result'],
          not: { required: ['error'] },
        },
        {
          properties: { status: { const: 'failed' }, error: jsonRpcError },
          required: ['error'],
          not: { required: ['result'] },
        },
        {
          properties: { status: { const: 'cancelled' } },
          not: { anyOf: [{ required: ['result'] }, { required: ['inputRequests'] }] },
        },
      ],
    },
  ],
};

const SHAPES = {
  CreateTaskResult: {
    allOf: [
      task,
      {
        required: ['resultType'],
        properties: { resultType: { const: 'task' }, _meta: { type: 'object' } },
        not: {
          anyOf: [
            { required: ['result'] },
            { required: ['error'] },
            { required: ['inputRequests'] },
            { required: ['task'] },
          ],
        },
      },
    ],
  },
  GetTaskResult: {
    allOf: [detailedTask, { required: ['resultType'], properties: { resultType: { const: 'complete' } } }],
  },
  UpdateTaskResult: {
    type: 'object',
    required: ['resultType'],
    properties: { resultType: { const: 'complete' } },
    not: { anyOf: [{ required: ['taskId'] }, { required: ['status'] }] },
  },
  CancelTaskResult: {
    type: 'object',
    required: ['resultType'],
    properties: { resultType: { const: 'complete' } },
    not: { anyOf: [{ required: ['taskId'] }, { required: ['status'] }] },
  },
  TaskStatusNotification: {
    type: 'object',
    required: ['jsonrpc', 'method', 'params'],
    properties: { jsonrpc: { const: '2.0' }, method: { const: 'notifications/tasks' }, params: detailedTask },
  },
} as const;

export type TaskShape = keyof typeof SHAPES;

const ajv = new Ajv2020({ strict: false, allErrors: true });
const ours = new Map<TaskShape, ValidateFunction>(
  Object.entries(SHAPES).map(([name, schema]) => [name as TaskShape, ajv.compile(schema)]),
);

/** The extension's own schema, when `EXT_TASKS_SCHEMA` names a copy of it. */
const official = (() => {
  const path = process.env.EXT_TASKS_SCHEMA;
  if (!path) return undefined;
  const schema = JSON.parse(readFileSync(path, 'utf8')) as { $id?: string };
  const strict = new Ajv2020({ strict: false, allErrors: true });
  strict.addSchema(schema, 'ext-tasks');
  return (name: TaskShape) => strict.getSchema(`ext-tasks#/$defs/${name}`);
})();

/** Whether the extension's own schema takes part (`EXT_TASKS_SCHEMA`). */
export const CHECKS_OFFICIAL_SCHEMA = official !== undefined;

/** The problems of `value` as a `shape` (empty when valid), by this transcription and the official schema. */
export function taskShapeProblems(shape: TaskShape, value: unknown): string[] {
  const problems: string[] = [];
  const validators: Array<[string, ValidateFunction | undefined]> = [['ours', ours.get(shape)]];
  if (official) validators.push(['official', official(shape)]);
  for (const [which, validate] of validators) {
    if (!validate) {
      problems.push(`${which}: no schema for ${shape}`);
      continue;
    }
    if (!validate(value)) {
      for (const error of validate.errors ?? []) problems.push(`${which}: ${error.instancePath} ${error.message}`);
    }
  }
  return problems;
}
