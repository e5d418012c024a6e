// setupFilesAfterEnv of the e2e-cluster project: startGateway() starts three gateway processes
// on Redis behind a round-robin proxy instead of one in-process gateway, which takes longer than
// Jest's 5 s hook default.
import { jest } from '@jest/globals';

process.env.MCP_E2E_CLUSTER = '1';
jest.setTimeout(120_000);
