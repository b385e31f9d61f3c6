/** `serve`'s arguments: `--port N` / `--port=N`, and a sentence for every bad value. */
import { describe, expect, it } from 'vitest';
import { parseServeArgs } from '../../../src/commands/serve.js';

const RULE = 'give a whole number from 1 to 65535, or 0 for a free port';

describe('parseServeArgs', () => {
  it('takes --port N and --port=N, 0 included', () => {
    expect(parseServeArgs([])).toEqual({});
    expect(parseServeArgs(['--port', '7400'])).toEqual({ port: 7400 });
    expect(parseServeArgs(['--port=65535'])).toEqual({ port: 65535 });
    expect(parseServeArgs(['--port', '0'])).toEqual({ port: 0 });
    expect(parseServeArgs(['--port=08080'])).toEqual({ port: 8080 });
  });

  it('refuses what Number() would take but is not a port, naming the value and what is allowed', () => {
    for (const value of ['abc', '65536', '99999', '1.5', '1e3', '0x10', ' 80', '80 ', '', '+80', '123456']) {
      expect(parseServeArgs([`--port=${value}`]), value).toEqual({ error: `--port "${value}" is not a port: ${RULE}.` });
    }
  });

  it('says when the value is missing, the option repeated, or another argument given', () => {
    expect(parseServeArgs(['--port'])).toEqual({ error: `--port needs a value: ${RULE} (e.g. --port 7400).` });
    expect(parseServeArgs(['--port', '--help'])).toEqual({ error: `--port needs a value: ${RULE} (e.g. --port 7400).` });
    expect(parseServeArgs(['--port', '-1'])).toEqual({ error: `--port "-1" is not a port: ${RULE}.` });
    expect(parseServeArgs(['--port', '1', '--port=2'])).toEqual({ error: '--port is given twice; give it once.' });
    expect(parseServeArgs(['7400'])).toEqual({ error: 'unexpected argument "7400"; the only option is --port N.' });
  });
});
