// Node 20 support for the conformance CLI:  node --import ./test/conformance/shim/register.mjs ...
//
// @modelcontextprotocol/conformance imports `globSync` from 'fs', which exists from Node 22 on
// only; on Node 20 that named import fails at link time, before any scenario runs. On such a Node
// this registers a resolve hook that hands the suite's own modules a copy of 'fs' carrying a
// small globSync. Every other module keeps the real 'fs'. On Node 22+ it does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (typeof fs.globSync !== 'function') register('./resolve-fs.mjs', import.meta.url);
