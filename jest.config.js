/** Jest 30 in native ESM mode (run through `node --experimental-vm-modules`). */
const shared = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  testEnvironment: 'node',
  moduleNameMapper: {
    '^@app/mcp$': '<rootDir>/libs/mcp/src/index.ts',
    '^@app/mcp/(.*)\\.js$': '<rootDir>/libs/mcp/src/$1.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  transform: {
    '^.+\\.ts$': ['ts-jest', { useESM: true, tsconfig: '<rootDir>/tsconfig.json' }],
  },
};

export default {
  projects: [
    { ...shared, displayName: 'unit', rootDir: '.', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/src/**/*.spec.ts'] },
    { ...shared, displayName: 'e2e', rootDir: '.', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
