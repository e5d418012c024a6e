// Test helpers for backend authors (`@nest-mcp/server/testing`): the contract suite every
// backend runs, a wrapper that slows down, holds and fails a backend's calls, and a recording
// connection. Written against Jest's globals.
export * from './backend-contract.js';
export * from './faulty-backend.js';
export { describeTaskStoreContract, taskLimits, taskRecord } from './task-store-contract.js';
export { describeSkillStoreContract, storedSkill } from './skill-store-contract.js';
export * from './fake-connection.js';
