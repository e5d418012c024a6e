import type { McpEra } from '../../protocol/inbound/inbound.js';
import { LEGACY_TASKS } from './legacy-tasks.js';
import { MODERN_TASKS } from './modern-tasks.js';
import type { McpTaskEra } from './task-era.js';

const TASK_ERAS: Readonly<Record<McpEra, McpTaskEra>> = { legacy: LEGACY_TASKS, modern: MODERN_TASKS };

/** The task rules of an era: chosen once, where a request, a task or a declaration names its era. */
export const taskEraOf = (era: McpEra): McpTaskEra => TASK_ERAS[era];
