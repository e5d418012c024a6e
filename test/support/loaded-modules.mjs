/**
 * Preloaded with `node --import` into a process under test: records the URL of every ES module
 * the process resolves, one per line, in the file named by LOADED_MODULES_FILE. The hooks thread
 * writes each line before the import it answers goes on, so once the process has done something
 * the file holds every module loaded to get there. For tests of what a process does not load.
 */
import { register } from 'node:module';

const file = process.env.LOADED_MODULES_FILE;
if (!file) throw new Error('loaded-modules.mjs: set LOADED_MODULES_FILE');
register('./loaded-modules.hooks.mjs', import.meta.url, { data: { file } });
