import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { StderrLogger } from './stderr.logger.js';

describe('StderrLogger', () => {
  let stdout: jest.SpiedFunction<typeof process.stdout.write>;
  let stderr: jest.SpiedFunction<typeof process.stderr.write>;
  const saved = { noColor: process.env.NO_COLOR, tty: process.stderr.isTTY };

  beforeEach(() => {
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    // The conditions under which Nest's ConsoleLogger colours its output.
    delete process.env.NO_COLOR;
    process.stderr.isTTY = true;
  });

  afterEach(() => {
    jest.restoreAllMocks();
    if (saved.noColor === undefined) delete process.env.NO_COLOR;
    else process.env.NO_COLOR = saved.noColor;
    process.stderr.isTTY = saved.tty;
  });

  it('writes every level to stderr, in plain text', () => {
    const logger = new StderrLogger();
    logger.log('a log line', 'Ctx');
    logger.warn('a warning', 'Ctx');
    logger.debug('a debug line', 'Ctx');
    logger.error('an error', undefined, 'Ctx');
    expect(stdout).not.toHaveBeenCalled();
    const written = stderr.mock.calls.map(([chunk]) => String(chunk)).join('');
    for (const text of ['a log line', 'a warning', 'a debug line', 'an error']) expect(written).toContain(text);
    expect(written).not.toContain('\u001b[');
  });

  it('keeps the other console logger options', () => {
    new StderrLogger({ prefix: 'Gateway', timestamp: false }).log('hello', 'Ctx');
    expect(String(stderr.mock.calls[0][0])).toMatch(/^\[Gateway\] \d+ {2}- .* LOG \[Ctx\] hello\n$/);
  });
});
