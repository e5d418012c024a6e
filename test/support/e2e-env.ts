// setupFilesAfterEnv of the e2e projects: hooks and tests that start applications, processes or
// servers get 30 s before Jest calls them hung (its 5 s default is a start-up time on a loaded
// 2-core machine). A guard against hangs, not a measure of speed.
import { jest } from '@jest/globals';

jest.setTimeout(30_000);
