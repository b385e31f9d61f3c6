import { ErrorCode, SwitchboardError } from '../errors.js';

/**
 * Key names → the bytes an xterm sends (docs/design.md §3.2 `send.keys`): `enter`, `tab`, `up`,
 * `f5`, `ctrl+c`, `alt+b`, `shift+tab`, `ctrl+shift+up`, single characters like `q` or `Y`.
 */

const NAMED: Record<string, string> = {
  enter: '\r',
  return: '\r',
  tab: '\t',
  escape: '\x1b',
  esc: '\x1b',
  backspace: '\x7f',
  space: ' ',
  delete: '\x1b[3~',
  insert: '\x1b[2~',
  pageup: '\x1b[5~',
  pagedown: '\x1b[6~',
  f5: '\x1b[15~',
  f6: '\x1b[17~',
  f7: '\x1b[18~',
  f8: '\x1b[19~',
  f9: '\x1b[20~',
  f10: '\x1b[21~',
  f11: '\x1b[23~',
  f12: '\x1b[24~',
};

/** Keys whose unmodified form depends on application cursor mode (DECCKM). */
const CURSOR: Record<string, string> = { up: 'A', down: 'B', right: 'C', left: 'D', home: 'H', end: 'F' };
/** F1–F4 are SS3 keys. */
const SS3: Record<string, string> = { f1: 'P', f2: 'Q', f3: 'R', f4: 'S' };

export const KEY_NAMES = [...Object.keys(NAMED), ...Object.keys(CURSOR), ...Object.keys(SS3)];

interface Modifiers {
  ctrl: boolean;
  alt: boolean;
  shift: boolean;
}

interface KeyModes {
  applicationCursorKeys: boolean;
}

/** Encodes key names into bytes; an unknown name is an INVALID_ARGUMENT naming it. */
export function encodeKeys(keys: readonly string[], modes: KeyModes): string {
  return keys.map((key) => encodeKey(key, modes)).join('');
}

function encodeKey(spec: string, modes: KeyModes): string {
  // `ctrl++` is ctrl and the plus key; `+` alone is the plus key.
  const plus = spec === '+' || spec.endsWith('++');
  const parts = plus
    ? spec
        .slice(0, -1)
        .split('+')
        .filter((p) => p !== '')
    : spec.split('+');
  const base = plus ? '+' : (parts.pop() ?? '');
  if (base === '') throw invalidKey(spec, 'empty key');
  const mods: Modifiers = { ctrl: false, alt: false, shift: false };
  for (const part of parts) {
    const mod = part.toLowerCase();
    if (mod === 'ctrl' || mod === 'control') mods.ctrl = true;
    else if (mod === 'alt' || mod === 'meta' || mod === 'option') mods.alt = true;
    else if (mod === 'shift') mods.shift = true;
    else throw invalidKey(spec, `unknown modifier "${part}"`);
  }
  const name = base.length === 1 ? base : base.toLowerCase();
  const modifierCode = 1 + (mods.shift ? 1 : 0) + (mods.alt ? 2 : 0) + (mods.ctrl ? 4 : 0);

  if (name in CURSOR) {
    const final = CURSOR[name]!;
    if (modifierCode > 1) return `\x1b[1;${modifierCode}${final}`;
    return modes.applicationCursorKeys ? `\x1bO${final}` : `\x1b[${final}`;
  }
  if (name in SS3) return modifierCode > 1 ? `\x1b[1;${modifierCode}${SS3[name]}` : `\x1bO${SS3[name]}`;
  if (name === 'tab' && mods.shift && !mods.ctrl) return `${mods.alt ? '\x1b' : ''}\x1b[Z`;
  if (name in NAMED) {
    const seq = NAMED[name]!;
    const tilde = /^\x1b\[(\d+)~$/.exec(seq);
    if (tilde && modifierCode > 1) return `\x1b[${tilde[1]};${modifierCode}~`;
    if (name === 'space' && mods.ctrl) return withAlt('\0', mods);
    if (name === 'backspace' && mods.ctrl) return withAlt('\x08', mods);
    return withAlt(seq, mods);
  }
  if (name.length === 1) {
    let char = mods.shift ? name.toUpperCase() : name;
    if (mods.ctrl) char = controlChar(char, spec);
    return withAlt(char, mods);
  }
  throw invalidKey(spec, 'unknown key');
}

function withAlt(seq: string, mods: Modifiers): string {
  return mods.alt ? `\x1b${seq}` : seq;
}

function controlChar(char: string, spec: string): string {
  const upper = char.toUpperCase();
  const code = upper.charCodeAt(0);
  if (code >= 0x40 && code <= 0x5f) return String.fromCharCode(code & 0x1f); // @, A–Z, [ \ ] ^ _
  if (char === '?') return '\x7f';
  if (char === ' ' || char === '2') return '\0';
  throw invalidKey(spec, 'ctrl combines with a letter or one of @[\\]^_?');
}

function invalidKey(spec: string, why: string): SwitchboardError {
  return new SwitchboardError(
    ErrorCode.InvalidArgument,
    `keys: "${spec}" is not a key (${why}). Use names like enter, tab, escape, backspace, up, down, left, right, home, end, pageup, pagedown, delete, f1–f12, a single character, with ctrl+, alt+, shift+ prefixes (e.g. ctrl+c); send text with text.`,
  );
}
