import { escapeLogText, MAX_LOG_MESSAGE_CHARS, MAX_LOG_STACK_FRAMES, toLogLine, toLogStack } from './log-text.js';

describe('log text', () => {
  it.each([
    ['\n', '\\n'],
    ['\r', '\\r'],
    ['\t', '\\t'],
    ['\u0000', '\\u0000'],
    ['\u001b', '\\u001b'],
    ['\u007f', '\\u007f'],
    ['\u0085', '\\u0085'],
    ['\u009b', '\\u009b'],
    ['\u2028', '\\u2028'],
    ['\u2029', '\\u2029'],
  ])('escapes %j as %s', (char, escaped) => {
    expect(escapeLogText(`a${char}b`)).toBe(`a${escaped}b`);
  });

  it('leaves other text alone, backslashes and non-ASCII included', () => {
    expect(escapeLogText('tools/call é 日本 \\n')).toBe('tools/call é 日本 \\n');
  });

  it('changes nothing when applied twice', () => {
    for (const text of ['a\nb', 'x'.repeat(3 * MAX_LOG_MESSAGE_CHARS), 'y'.repeat(10 * MAX_LOG_MESSAGE_CHARS)]) {
      const once = toLogLine(text);
      expect(toLogLine(once)).toBe(once);
    }
  });

  it('cuts a long message, saying how long it was', () => {
    const line = toLogLine('z'.repeat(100_000));
    expect(line.length).toBeLessThanOrEqual(MAX_LOG_MESSAGE_CHARS);
    expect(line).toMatch(/^z+… \[100000 characters in all\]$/);
  });

  it('redacts before it cuts', () => {
    expect(toLogLine('Authorization: Bearer abc.def.ghi')).not.toContain('abc.def');
  });

  it("puts a stack's text on one line and keeps its frames, at most MAX_LOG_STACK_FRAMES of them", () => {
    const frames = Array.from({ length: MAX_LOG_STACK_FRAMES + 5 }, (_, i) => `    at f${i} (file.js:${i}:1)`);
    const stack = ['Error: first', '[Nest] 1 - LOG forged', ...frames].join('\n');
    const lines = toLogStack(stack).split('\n');
    expect(lines[0]).toBe('Error: first\\n[Nest] 1 - LOG forged');
    expect(lines.slice(1, -1)).toEqual(frames.slice(0, MAX_LOG_STACK_FRAMES));
    expect(lines.at(-1)).toBe('    ... 5 more frames');
    expect(toLogStack(stack, true).split('\n')[0]).toBe(frames[0]);
  });
});
