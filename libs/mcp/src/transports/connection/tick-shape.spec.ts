import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';

/**
 * V8's own view of `process.nextTick`'s feedback, in a child process with natives syntax: the
 * states of the slots that define the tick literal's properties, after full collections that
 * each find no tick alive (what lets the literal's hidden class die), each followed by one tick.
 */
function tickLiteralFeedback(keep: boolean): string[] {
  const source = readFileSync(join(dirname(fileURLToPath(import.meta.url)), 'tick-shape.ts'), 'utf8');
  const module = transformSync(source, { loader: 'ts', format: 'esm' }).code;
  const script = `${module}
${keep ? 'keepTickShape();' : ''}
const pause = () => new Promise((resolve) => setTimeout(resolve, 1));
await new Promise((resolve) => { let n = 0; const tick = () => (++n === 100000 ? resolve() : process.nextTick(tick)); process.nextTick(tick); });
for (let i = 0; i < 12; i++) { await pause(); globalThis.gc(); await pause(); process.nextTick(() => {}); await pause(); }
%DebugPrint(process.nextTick);
`;
  const printed = execFileSync(
    process.execPath,
    ['--expose-gc', '--allow-natives-syntax', '--input-type=module', '--eval', script],
    { encoding: 'utf8', timeout: 60_000 },
  );
  return [...printed.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map((match) => match[1]);
}

describe('keepTickShape', () => {
  it('keeps the feedback on the tick literal monomorphic where it would turn megamorphic', () => {
    // Without a tick held, the collections make the feedback give up (the state the function
    // exists to prevent): if a Node version stops showing it, this test says so.
    expect(tickLiteralFeedback(false)).toContain('MEGAMORPHIC');
    const kept = tickLiteralFeedback(true);
    expect(kept.length).toBeGreaterThan(0);
    expect(kept).not.toContain('MEGAMORPHIC');
  });
});
