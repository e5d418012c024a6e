// The public API of @nest-mcp/redis.
export { RedisMcpBackend, type RedisMcpBackendOptions } from './redis.backend.js';
export { toBackendError } from './redis-errors.js';
