/**
 * The line a shell holds, from the bytes agents typed (src/hub/gate/typedLine.ts; docs/design.md §2.9):
 * each submitting byte submits, keys the hub cannot model make the line unknown, a bracketed
 * paste is judged both as run and as kept. Data only: nothing here runs.
 */
import { describe, expect, it } from 'vitest';
import { encodeKeys } from '../../../../src/core/session/keys.js';
import { EMPTY_LINE, typeInto } from '../../../../src/hub/gate/typedLine.js';

const keys = (...names: string[]): string => encodeKeys(names, { applicationCursorKeys: false });
const texts = (bytes: string, paste = false, state = EMPTY_LINE): { submitted: string[]; rest: string; unknown: (string | null)[] } => {
  const typed = typeInto(state, bytes, paste);
  return { submitted: typed.submitted.map((line) => line.text), rest: typed.rest.text, unknown: [...typed.submitted, typed.rest].map((line) => line.unknown) };
};

describe('typeInto: what typing does to the line', () => {
  it('every key that submits a line submits it, whatever its name', () => {
    for (const key of ['enter', 'return', 'ctrl+m', 'ctrl+j', 'shift+enter', '\r', '\n']) {
      expect(texts(`echo hi${keys(key)}`).submitted, key).toEqual(['echo hi']);
    }
    expect(texts('echo hi\n').submitted).toEqual(['echo hi']);
    expect(texts('a\rb\nc')).toMatchObject({ submitted: ['a', 'b'], rest: 'c' });
  });

  it('alt+enter submits, the escape making the line unknown', () => {
    const typed = typeInto(EMPTY_LINE, `echo hi${keys('alt+enter')}`, false);
    expect(typed.submitted).toEqual([{ text: 'echo hi', unknown: expect.stringContaining('escape') }]);
  });

  it('ctrl+o submits the line and puts a history line on the prompt: the next line is unknown', () => {
    const typed = typeInto(EMPTY_LINE, `echo hi${keys('ctrl+o')}`, false);
    expect(typed.submitted).toEqual([{ text: 'echo hi', unknown: null }]);
    expect(typed.rest).toEqual({ text: '', unknown: expect.stringContaining('ctrl+o') });
  });

  it('keys whose effect the hub cannot know make the line unknown, and it stays so until submitted', () => {
    for (const key of [
      'up',
      'down',
      'ctrl+r',
      'ctrl+p',
      'ctrl+n',
      'tab',
      'alt+.',
      'ctrl+y',
      'backspace',
      'ctrl+u',
      'ctrl+w',
      'left',
      'home',
      'ctrl+c',
      'escape',
    ]) {
      const typed = typeInto(EMPTY_LINE, `ls${keys(key)} -la`, false);
      expect(typed.rest.unknown, key).toMatch(/cannot know/);
      // A lone escape takes the next character with it (alt+space), as readline reads it.
      expect(typed.rest.text).toBe(key === 'escape' ? 'ls-la' : 'ls -la');
      const next = typeInto(typed.rest, '\r', false);
      expect(next.submitted[0]?.unknown, key).toMatch(/cannot know/);
      expect(next.rest).toEqual(EMPTY_LINE);
    }
  });

  it('text typed without a submit is kept for the line the next submit runs', () => {
    const first = typeInto(EMPTY_LINE, 'rm -rf ', false);
    expect(first.submitted).toEqual([]);
    expect(texts('/x\r', false, first.rest).submitted).toEqual(['rm -rf /x']);
  });

  it('a bracketed paste: each pasted newline submits what the line holds so far, and the line keeps it for the next submit', () => {
    const paste = (text: string): string => `\x1b[200~${text}\x1b[201~`;
    const typed = typeInto(EMPTY_LINE, paste('cd /\n'), true);
    expect(typed.submitted.map((line) => line.text)).toEqual(['cd /']);
    expect(typed.rest.text).toBe('cd /\n');
    expect(texts('rm -rf home\r', true, typed.rest).submitted).toEqual(['cd /\nrm -rf home']);
    // A paste and its Enter in one send: the whole of it, once.
    expect(texts(`${paste('a\nb')}\r`, true).submitted).toEqual(['a\nb']);
    // Without the mode, the markers are keys and the newlines submit.
    const raw = typeInto(EMPTY_LINE, paste('a\nb'), false);
    expect(raw.submitted).toEqual([{ text: 'a', unknown: expect.stringContaining('cannot know') }]);
  });
});
