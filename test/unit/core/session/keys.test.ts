/**
 * Key names → the bytes an xterm sends (src/core/session/keys.ts, `send.keys`).
 *
 * The oracle for every key a terminal description covers is a real one: xterm-256color's key
 * capabilities as ncurses' `infocmp` printed them (fixtures/xterm-256color.keys.terminfo, the
 * command in its header). terminfo describes keypad-transmit mode, i.e. application cursor
 * keys (DECCKM set), so those comparisons use that mode; the normal-mode cursor keys (CSI A…)
 * and the C0 control characters are the VT100's and ASCII's, written out below.
 */
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ErrorCode, SwitchboardError } from '../../../../src/core/errors.js';
import { encodeKeys, KEY_NAMES } from '../../../../src/core/session/keys.js';

const NORMAL = { applicationCursorKeys: false };
const APPLICATION = { applicationCursorKeys: true };

/** One key in a mode. */
const key = (spec: string, modes = NORMAL): string => encodeKeys([spec], modes);

/** terminfo's string escapes: \E, ^X, \\, \, \: \^ and octal \nnn. */
function terminfoString(value: string): string {
  return value.replace(/\\([Ee\\,:^]|[0-7]{3})|\^(.)/g, (_all, escape: string | undefined, control: string | undefined) => {
    if (control !== undefined) return control === '?' ? '\x7f' : String.fromCharCode(control.toUpperCase().charCodeAt(0) & 0x1f);
    if (escape === 'E' || escape === 'e') return '\x1b';
    if (/^[0-7]{3}$/.test(escape!)) return String.fromCharCode(parseInt(escape!, 8));
    return escape!;
  });
}

const TERMINFO: ReadonlyMap<string, string> = new Map(
  fs
    .readFileSync(new URL('./fixtures/xterm-256color.keys.terminfo', import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('#') && line.includes('='))
    .map((line) => {
      const [name, ...value] = line.trim().replace(/,$/, '').split('=');
      return [name!, terminfoString(value.join('='))] as const;
    }),
);

function cap(name: string): string {
  const value = TERMINFO.get(name);
  if (value === undefined) throw new Error(`xterm-256color has no ${name} in the recorded terminfo`);
  return value;
}

/** terminfo's modifier suffixes (xterm's 1 + shift 1 + alt 2 + ctrl 4), and our prefixes for them. */
const MODIFIERS: { suffix: string; prefix: string }[] = [
  { suffix: '', prefix: 'shift+' }, // 2
  { suffix: '3', prefix: 'alt+' },
  { suffix: '4', prefix: 'alt+shift+' },
  { suffix: '5', prefix: 'ctrl+' },
  { suffix: '6', prefix: 'ctrl+shift+' },
  { suffix: '7', prefix: 'ctrl+alt+' },
];

describe('encodeKeys against xterm-256color (terminfo)', () => {
  it('the recorded terminfo holds the capabilities compared below', () => {
    for (const name of ['kcuu1', 'kf12', 'kUP7', 'kPRV7', 'kf63', 'kbs', 'kcbt']) expect(TERMINFO.has(name), name).toBe(true);
  });

  it('unmodified keys in application cursor mode: cursor keys, home/end, f1–f12, the editing keys, backspace, shift+tab', () => {
    const expected: Record<string, string> = {
      up: 'kcuu1',
      down: 'kcud1',
      right: 'kcuf1',
      left: 'kcub1',
      home: 'khome',
      end: 'kend',
      delete: 'kdch1',
      insert: 'kich1',
      pageup: 'kpp',
      pagedown: 'knp',
      backspace: 'kbs',
      'shift+tab': 'kcbt',
    };
    for (let n = 1; n <= 12; n++) expected[`f${n}`] = `kf${n}`;
    for (const [spec, capability] of Object.entries(expected)) expect(key(spec, APPLICATION), `${spec} = ${capability}`).toBe(cap(capability));
  });

  it('cursor, home/end and the editing keys with every combination of shift, alt and ctrl (either mode)', () => {
    const names: Record<string, string> = {
      up: 'UP',
      down: 'DN',
      right: 'RIT',
      left: 'LFT',
      home: 'HOM',
      end: 'END',
      delete: 'DC',
      insert: 'IC',
      pagedown: 'NXT',
      pageup: 'PRV',
    };
    for (const [name, capability] of Object.entries(names)) {
      for (const { suffix, prefix } of MODIFIERS) {
        const expected = cap(`k${capability}${suffix}`);
        expect(key(`${prefix}${name}`, NORMAL), `${prefix}${name}`).toBe(expected);
        expect(key(`${prefix}${name}`, APPLICATION), `${prefix}${name} (application mode)`).toBe(expected);
      }
    }
  });

  it('f1–f12 with shift, ctrl, ctrl+shift, alt and alt+shift (terminfo kf13–kf63)', () => {
    const blocks = ['shift+', 'ctrl+', 'ctrl+shift+', 'alt+', 'alt+shift+'];
    blocks.forEach((prefix, block) => {
      for (let n = 1; n <= 12; n++) {
        const capability = `kf${n + 12 * (block + 1)}`;
        if (!TERMINFO.has(capability)) continue; // terminfo stops at kf63 (alt+shift+f3)
        expect(key(`${prefix}f${n}`), `${prefix}f${n} = ${capability}`).toBe(cap(capability));
      }
    });
  });
});

describe('encodeKeys: keys terminfo does not describe', () => {
  it('cursor keys and home/end in normal mode are CSI sequences (DECCKM reset)', () => {
    expect(['up', 'down', 'right', 'left', 'home', 'end'].map((k) => key(k))).toEqual(['\x1b[A', '\x1b[B', '\x1b[C', '\x1b[D', '\x1b[H', '\x1b[F']);
    // f1–f4 are SS3 in both modes.
    expect(['f1', 'f2', 'f3', 'f4'].map((k) => key(k))).toEqual(['\x1bOP', '\x1bOQ', '\x1bOR', '\x1bOS']);
  });

  it('enter, tab, escape, space and their aliases', () => {
    expect(key('enter')).toBe('\r');
    expect(key('return')).toBe('\r');
    expect(key('tab')).toBe('\t');
    expect(key('escape')).toBe('\x1b');
    expect(key('esc')).toBe('\x1b');
    expect(key('space')).toBe(' ');
  });

  it('single characters as typed, shift upper-cases a letter', () => {
    expect(key('q')).toBe('q');
    expect(key('Y')).toBe('Y');
    expect(key('shift+q')).toBe('Q');
    expect(key('/')).toBe('/');
    expect(key('é')).toBe('é');
    expect(key('+')).toBe('+');
  });

  it('ctrl with a letter or @[\\]^_? is the C0 control character, either case', () => {
    expect(key('ctrl+c')).toBe('\x03');
    expect(key('ctrl+C')).toBe('\x03');
    expect(key('ctrl+a')).toBe('\x01');
    expect(key('ctrl+z')).toBe('\x1a');
    expect(key('ctrl+@')).toBe('\x00');
    expect(key('ctrl+[')).toBe('\x1b');
    expect(key('ctrl+\\')).toBe('\x1c');
    expect(key('ctrl+]')).toBe('\x1d');
    expect(key('ctrl+^')).toBe('\x1e');
    expect(key('ctrl+_')).toBe('\x1f');
    expect(key('ctrl+?')).toBe('\x7f');
    // xterm's ctrl+space and ctrl+2 send NUL; ctrl+backspace sends BS.
    expect(key('ctrl+space')).toBe('\x00');
    expect(key('ctrl+2')).toBe('\x00');
    expect(key('ctrl+backspace')).toBe('\x08');
  });

  it('alt prefixes ESC (meta sends escape), also to ctrl characters and named keys', () => {
    expect(key('alt+b')).toBe('\x1bb');
    expect(key('alt+B')).toBe('\x1bB');
    expect(key('alt+shift+b')).toBe('\x1bB');
    expect(key('ctrl+alt+x')).toBe('\x1b\x18');
    expect(key('alt+enter')).toBe('\x1b\r');
    expect(key('alt+backspace')).toBe('\x1b\x7f');
    expect(key('alt+ctrl+space')).toBe('\x1b\x00');
    expect(key('alt+shift+tab')).toBe('\x1b\x1b[Z');
    expect(key('alt++')).toBe('\x1b+');
  });

  it('modifier names are case-insensitive and have aliases: control, meta, option', () => {
    expect(key('CTRL+c')).toBe('\x03');
    expect(key('Control+c')).toBe('\x03');
    expect(key('Meta+b')).toBe('\x1bb');
    expect(key('option+b')).toBe('\x1bb');
    expect(key('Shift+Up')).toBe('\x1b[1;2A');
    expect(key('ENTER')).toBe('\r');
    expect(key('PageDown')).toBe('\x1b[6~');
  });

  it('a list is the keys in order; every name in KEY_NAMES encodes', () => {
    expect(encodeKeys(['escape', ':', 'w', 'q', 'enter'], NORMAL)).toBe('\x1b:wq\r');
    expect(encodeKeys([], NORMAL)).toBe('');
    for (const name of KEY_NAMES) expect(key(name).length, name).toBeGreaterThan(0);
    expect([...KEY_NAMES].sort()).toEqual(
      [
        'backspace',
        'delete',
        'down',
        'end',
        'enter',
        'esc',
        'escape',
        'home',
        'insert',
        'left',
        'pagedown',
        'pageup',
        'return',
        'right',
        'space',
        'tab',
        'up',
        ...Array.from({ length: 12 }, (_, i) => `f${i + 1}`),
      ].sort(),
    );
  });
});

describe('encodeKeys: names that are not keys', () => {
  /** The error encodeKeys throws for `spec`, or a failure if it throws none. */
  function refusal(spec: string): SwitchboardError {
    try {
      key(spec);
    } catch (error) {
      expect(error).toBeInstanceOf(SwitchboardError);
      return error as SwitchboardError;
    }
    throw new Error(`"${spec}" was accepted as a key`);
  }

  it.each([
    ['', 'empty key'],
    ['ctrl+', 'empty key'],
    ['hyper+a', 'unknown modifier "hyper"'],
    ['cmd+c', 'unknown modifier "cmd"'],
    ['f13', 'unknown key'],
    ['enterr', 'unknown key'],
    ['😀', 'unknown key'],
    ['ctrl+1', 'ctrl combines with a letter or one of @[\\]^_?'],
    ['ctrl++', 'ctrl combines with a letter or one of @[\\]^_?'],
  ])('%j is INVALID_ARGUMENT naming it and why (%s), with the names that work', (spec, why) => {
    const error = refusal(spec);
    expect(error.code).toBe(ErrorCode.InvalidArgument);
    expect(error.message).toContain(`keys: "${spec}" is not a key (${why})`);
    expect(error.message).toMatch(/Use names like enter, tab, escape.*ctrl\+c.*send text with text\./);
  });

  it('one bad name refuses the whole list', () => {
    expect(() => encodeKeys(['enter', 'nope', 'enter'], NORMAL)).toThrow(/"nope" is not a key/);
  });
});
