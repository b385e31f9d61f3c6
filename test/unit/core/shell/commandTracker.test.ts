/**
 * CommandTracker (src/core/shell/commandTracker.ts), the xterm addon that reads shell-integration
 * marks, loaded into a real @xterm/headless Terminal and fed byte streams.
 *
 * Where the streams come from. The marks are built from src/core/shell/marks.ts's constants in the
 * exact shape each script in assets/shell-integration/ prints them, every mark ending in BEL:
 *  - A, B: `\e]133;A;nonce=N\a` … `\e]133;B;nonce=N\a` around the prompt — bash.sh
 *    (__sb_postcmd wraps PS1), zsh/integration.zsh (__sb_prompt), fish.fish (fish_prompt), sh.sh (__sb_A/B);
 *  - C: `\e]133;C;nonce=N\a` — bash.sh's PS0 (__sb_cmark), zsh and fish's preexec, sh.sh's __sb_exec;
 *  - E: `\e]633;E;<line>;N\a` right before C — zsh and fish's preexec, the line escaped as their
 *    __sb_escape does (`\` → `\\`, `;` → `\x3b`, controls → `\xNN`: zsh upper-case hex, fish lower);
 *  - F, G: `\e]633;F;N\a` … `\e]633;G;N\a` around bash's PS2 (__sb_postcmd);
 *  - OSC 7 then D: `\e]7;file://<host><path>\a\e]133;D;<exit>;nonce=N\a` — every script's
 *    precmd/postexec/__sb_done, the path percent-encoded byte by byte outside [A-Za-z0-9/._~-].
 * The order around one command is marks.ts's: E, C, output, OSC 7, D, A, prompt, B. Between
 * the marks: the prompt text, what the line editor echoes of the typed line and CR LF for
 * Enter, the command's output, as a terminal shows them. `clear`'s bytes come from the real
 * program (TERM=xterm-256color). test/integration/shellIntegration.test.ts runs the real shells.
 */
import { execFileSync } from 'node:child_process';
import xtermHeadless from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { CommandTracker, type CommandTrackerOptions, type TrackedCommand } from '../../../../src/core/shell/commandTracker.js';
import { OSC_CWD, OSC_FINAL_TERM, OSC_VSCODE } from '../../../../src/core/shell/marks.js';

const { Terminal } = xtermHeadless;

const NONCE = 'k3Y_nonce-42';
const OTHER = 'someone-else';
const HOST = 'devbox';

/** Every script ends its marks with BEL (`\a`, `\007`). */
const osc = (code: number, data: string): string => `\x1b]${code};${data}\x07`;
const mark = {
  A: (nonce = NONCE) => osc(OSC_FINAL_TERM, `A;nonce=${nonce}`),
  B: (nonce = NONCE) => osc(OSC_FINAL_TERM, `B;nonce=${nonce}`),
  C: (nonce = NONCE) => osc(OSC_FINAL_TERM, `C;nonce=${nonce}`),
  D: (exit: number | string, nonce = NONCE) => osc(OSC_FINAL_TERM, `D;${exit};nonce=${nonce}`),
  E: (escapedLine: string, nonce = NONCE) => osc(OSC_VSCODE, `E;${escapedLine};${nonce}`),
  F: (nonce = NONCE) => osc(OSC_VSCODE, `F;${nonce}`),
  G: (nonce = NONCE) => osc(OSC_VSCODE, `G;${nonce}`),
  /** The re-arm line's answer (bash.sh, zsh/integration.zsh, fish.fish with --rearm). */
  R: (exit: number | string, nonce = NONCE) => osc(OSC_VSCODE, `R;${exit};${nonce}`),
  /** OSC 7, the path encoded as the scripts' __sb_cwd does. */
  cwd: (path: string, host = HOST) => osc(OSC_CWD, `file://${host}${percentEncoded(path)}`),
};

/** bash.sh / zsh's __sb_cwd: each UTF-8 byte outside [A-Za-z0-9/._~-] as %XX. */
function percentEncoded(path: string): string {
  let out = '';
  for (const byte of Buffer.from(path, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9/._~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A prompt as the scripts wrap it: A, the prompt text, B. */
const prompt = (text = '$ ', nonce = NONCE): string => `${mark.A(nonce)}${text}${mark.B(nonce)}`;
/** After a command: OSC 7 and D (precmd), then the next prompt. */
const finished = (exit: number, cwd = '/home/u'): string => `${mark.cwd(cwd)}${mark.D(exit)}${prompt()}`;

/** A real terminal with the tracker loaded, fed chunk by chunk as a PTY would deliver them. */
class Harness {
  readonly term = new Terminal({ cols: 40, rows: 8, scrollback: 200, allowProposedApi: true });
  readonly tracker: CommandTracker;
  readonly started: TrackedCommand[] = [];
  readonly finished: TrackedCommand[] = [];
  readonly cwds: string[] = [];
  prompts = 0;
  /** Transcript offsets of the chunks written and not parsed yet, as emulator.ts keeps them. */
  private readonly chunks: [number, number][] = [];
  private bytes = 0;

  constructor(options: Partial<CommandTrackerOptions> = {}) {
    this.tracker = new CommandTracker({
      nonce: NONCE,
      headLines: 5,
      chunkStart: () => this.chunks[0]?.[0] ?? 0,
      chunkEnd: () => this.chunks[0]?.[1] ?? 0,
      ...options,
    });
    this.term.loadAddon(this.tracker);
    this.tracker.onDidStartCommand((command) => this.started.push(command));
    this.tracker.onDidFinishCommand((command) => this.finished.push(command));
    this.tracker.onDidPrompt(() => this.prompts++);
    this.tracker.onDidChangeCwd((cwd) => this.cwds.push(cwd));
  }

  /** One chunk; resolves once xterm has parsed it (the buffer is read only then). */
  feed(data: string): Promise<void> {
    const start = this.bytes;
    this.bytes += Buffer.byteLength(data);
    this.chunks.push([start, this.bytes]);
    return new Promise((resolve) =>
      this.term.write(data, () => {
        this.chunks.shift();
        resolve();
      }),
    );
  }

  dispose(): void {
    this.tracker.dispose();
    this.term.dispose();
  }
}

const harnesses: Harness[] = [];
function harness(options: Partial<CommandTrackerOptions> = {}): Harness {
  const h = new Harness(options);
  harnesses.push(h);
  return h;
}
afterEach(() => {
  for (const h of harnesses.splice(0)) h.dispose();
});

describe('CommandTracker: prompts and commands', () => {
  it('the first prompt (OSC 7, A, B): the cwd and a prompt, no command; then bash runs echo hi: seq 1, the line from the screen, exit 0', async () => {
    const h = harness();
    // bash: __sb_precmd's first OSC 7 (no D), then PS1 wrapped in A/B.
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    expect(h.tracker.isAtPrompt).toBe(true);
    expect(h.tracker.cwd).toBe('/home/u');
    expect(h.prompts).toBe(1);
    expect(h.started).toEqual([]);
    expect(h.tracker.nextSeq).toBe(1);
    // The typed line as readline echoes it, Enter, then PS0's C.
    await h.feed('echo hi');
    await h.feed(`\r\n${mark.C()}`);
    expect(h.started).toHaveLength(1);
    expect(h.tracker.runningCommand).toMatchObject({ seq: 1, commandLine: 'echo hi', cwd: '/home/u', exitCode: null, endedAt: null });
    expect(h.tracker.isAtPrompt).toBe(false);
    await h.feed('hi\r\n');
    await h.feed(finished(0));
    expect(h.finished).toHaveLength(1);
    expect(h.finished[0]).toBe(h.started[0]);
    expect(h.tracker.lastCommand).toMatchObject({ seq: 1, commandLine: 'echo hi', exitCode: 0, headLines: ['hi'], lineFeeds: 1, cwd: '/home/u' });
    expect(h.tracker.lastCommand!.endedAt).toEqual(expect.any(Number));
    expect(h.tracker.runningCommand).toBeNull();
    expect(h.tracker.isAtPrompt).toBe(true);
    expect(h.tracker.nextSeq).toBe(2);
  });

  it('numbers commands in order; A alone is not a prompt yet (B is)', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    for (const [i, line] of ['true', 'false', 'echo three'].entries()) {
      await h.feed(`${line}\r\n${mark.C()}`);
      expect(h.tracker.runningCommand?.seq).toBe(i + 1);
      await h.feed(`${mark.cwd('/home/u')}${mark.D(i)}${mark.A()}$ `);
      expect(h.tracker.isAtPrompt).toBe(false); // between A and B the prompt is still being drawn
      await h.feed(mark.B());
      expect(h.tracker.isAtPrompt).toBe(true);
    }
    expect(h.finished.map((c) => [c.seq, c.commandLine, c.exitCode])).toEqual([
      [1, 'true', 0],
      [2, 'false', 1],
      [3, 'echo three', 2],
    ]);
    expect(h.prompts).toBe(4);
  });

  it('exit codes from D: a number, none (empty) → null, not a number → null', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    const run = async (exit: string): Promise<number | null> => {
      await h.feed(`cmd\r\n${mark.C()}out\r\n${mark.cwd('/home/u')}${mark.D(exit)}${prompt()}`);
      return h.tracker.lastCommand!.exitCode;
    };
    expect(await run('130')).toBe(130); // sh.sh's __sb_done 130 from its INT trap
    expect(await run('42')).toBe(42);
    expect(await run('')).toBeNull();
    expect(await run('x')).toBeNull();
  });

  it('a D with no command running records nothing; a second C while one runs belongs to it (bash prints PS0 per command of a line)', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${mark.D(0)}${prompt()}`);
    expect(h.finished).toEqual([]);
    await h.feed(`true; echo b\r\n${mark.C()}${mark.C()}b\r\n`);
    expect(h.started).toHaveLength(1);
    await h.feed(finished(0));
    expect(h.finished).toHaveLength(1);
    expect(h.finished[0]).toMatchObject({ seq: 1, commandLine: 'true; echo b', headLines: ['b'] });
    // D again after the command finished (no C): still one record.
    await h.feed(`${mark.cwd('/home/u')}${mark.D(0)}${prompt()}`);
    expect(h.finished).toHaveLength(1);
  });
});

describe('CommandTracker: the nonce', () => {
  it('ignores a C, D, A or B without this session’s nonce: a program printing a fake "finished" mark ends nothing', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    await h.feed(`printf fake\r\n${mark.C()}`);
    // What shellIntegration.test.ts's program prints (no nonce), and one with another nonce.
    await h.feed(`\x1b]133;D;0\x07${mark.D(0, OTHER)}${mark.A(OTHER)}${mark.B(OTHER)}still running\r\n`);
    expect(h.finished).toEqual([]);
    expect(h.tracker.runningCommand).not.toBeNull();
    expect(h.prompts).toBe(1);
    await h.feed(finished(1));
    expect(h.finished).toHaveLength(1);
    expect(h.finished[0]).toMatchObject({ exitCode: 1, headLines: ['still running'] });
  });

  it('prompt fallback: ends the running command at the given row (the prompt left out), and hears R only with the nonce', async () => {
    const h = harness();
    const rearms: (number | null)[] = [];
    h.tracker.onDidRearm((exit) => rearms.push(exit));
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    await h.feed(`exec bash\r\n${mark.C()}out 1\r\nbash-5.2$ `);
    await h.feed(`${mark.R(0, OTHER)}\x1b]633;R;0\x07${mark.R('')}${mark.R(7)}`);
    expect(rearms).toEqual([null, 7]);
    expect(h.tracker.runningCommand).not.toBeNull();
    const finishedCommand = h.tracker.finishByFallback(7, { marker: h.term.registerMarker(0), col: 0 }, 42);
    expect(finishedCommand).toMatchObject({ exitCode: 7, byFallback: true, endByte: 42, endRowText: '' });
    expect(h.finished).toEqual([finishedCommand]);
    expect(h.tracker.runningCommand).toBeNull();
    expect(h.tracker.finishByFallback(0, { marker: h.term.registerMarker(0), col: 0 }, 50)).toBeNull();
  });

  it('ignores a C with another nonce at the prompt, and an E or G with another nonce', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt('% ')}`);
    await h.feed(mark.C(OTHER));
    expect(h.started).toEqual([]);
    await h.feed(`echo real\r\n${mark.E('echo real')}${mark.C()}${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('echo real');
    // bash (no E of its own): another session's E, printed by a background job at the prompt,
    // does not name the next command; the screen does.
    await h.feed(`${mark.E('rm -rf ~', OTHER)}echo mine\r\n${mark.C()}${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('echo mine');
    // bash: a G that is not ours does not start the input after a continuation prompt.
    await h.feed(`echo 'a\r\n${mark.F()}> ${mark.G(OTHER)}b'\r\n${mark.C()}${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe("echo 'a\n> b'");
  });
});

describe('CommandTracker: the command line', () => {
  it('zsh and fish: from the E mark, their escaping undone (\\\\, \\x3b, \\xNN in either case)', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt('% ')}`);
    // printf '%s\n' 'a;b'  — zsh's __sb_escape: `\` → `\\`, `;` → `\x3b`.
    const typed = "printf '%s\\n' 'a;b'";
    await h.feed(`${typed}\r\n${mark.E("printf '%s\\\\n' 'a\\x3bb'")}${mark.C()}a;b\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe(typed);
    // A two-line command: zsh escapes the newline as \x0A (upper-case hex), fish as \x0a.
    await h.feed(`echo one\r\necho two\r\n${mark.E('echo one\\x0Aecho two')}${mark.C()}one\r\ntwo\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('echo one\necho two');
    await h.feed(`echo x\r\n${mark.E('echo one\\x0aecho two')}${mark.C()}x\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('echo one\necho two');
  });

  it('the line the session typed itself (expectCommandLine) wins over the E mark and the screen', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt('% ')}`);
    h.tracker.expectCommandLine('ls -la');
    await h.feed(`ls -la\r\n${mark.E('ls -l')}${mark.C()}${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('ls -la');
    // sh/dash: the session types `__sb_exec '<line>'` (sh.sh prints no E): its own record, not the screen.
    h.tracker.expectCommandLine('echo hi');
    await h.feed(`__sb_exec 'echo hi'\r\n${mark.C()}hi\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('echo hi');
    // The next command, typed by the person, is read again.
    await h.feed(`pwd\r\n${mark.E('pwd')}${mark.C()}/home/u\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('pwd');
  });

  it('bash: read from the screen between B and C, continuation prompts (F…G around PS2) left out', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    await h.feed(`printf '%s\\n' 'a\r\n${mark.F()}> ${mark.G()}b'\r\n${mark.C()}a\r\nb\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe("printf '%s\\n' 'a\nb'");
  });

  it('bash: a line longer than the terminal is read whole; a two-line prompt is not part of it', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt('top-line ~\r\n$ ')}`);
    const long = `echo ${'x'.repeat(70)}`; // 40 columns: wraps twice
    await h.feed(`${long}\r\n${mark.C()}${'x'.repeat(70)}\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe(long);
  });

  it('bash: after a redrawn prompt (B again, as Ctrl-L prints it) the line is what follows the last B', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    // readline's clear-screen: terminfo's clear for xterm-256color (\E[H\E[2J), the prompt, the line again.
    await h.feed(`echo drawn\x1b[H\x1b[2J${prompt()}echo drawn\r\n${mark.C()}drawn\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.commandLine).toBe('echo drawn');
    expect(h.prompts).toBe(3);
  });
});

describe('CommandTracker: the cwd (OSC 7)', () => {
  it('decodes the percent-encoded path, ignores the host, fires a change once per new cwd, and records the cwd at D', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    const odd = '/tmp/a b é;x';
    await h.feed(`cd '${odd}'\r\n${mark.C()}${mark.cwd(odd, 'other-host')}${mark.D(0)}${prompt()}`);
    expect(h.tracker.cwd).toBe(odd);
    expect(h.tracker.lastCommand).toMatchObject({ cwd: odd });
    await h.feed(`true\r\n${mark.C()}${finished(0, odd)}`);
    expect(h.tracker.lastCommand).toMatchObject({ cwd: odd });
    expect(h.cwds).toEqual(['/home/u', odd]);
  });

  it('ignores an OSC 7 that is not a file URL, and one that does not decode', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    await h.feed(osc(OSC_CWD, 'http://example.com/elsewhere'));
    await h.feed(osc(OSC_CWD, 'file://host/bad%E0%A4%A'));
    await h.feed(osc(OSC_CWD, 'not a url'));
    expect(h.tracker.cwd).toBe('/home/u');
    expect(h.cwds).toEqual(['/home/u']);
  });
});

describe('CommandTracker: output', () => {
  it('keeps the first headLines logical lines of the output, also after they scrolled off the screen, and counts every line', async () => {
    const h = harness({ headLines: 3 });
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    // seq 1 20 on an 8-row screen, in three chunks.
    const lines = Array.from({ length: 20 }, (_, i) => `${i + 1}\r\n`);
    await h.feed(`seq 1 20\r\n${mark.C()}${lines.slice(0, 2).join('')}`);
    expect(h.tracker.runningCommand?.headLines).toEqual(['1', '2']);
    await h.feed(lines.slice(2, 12).join(''));
    await h.feed(lines.slice(12).join(''));
    await h.feed(finished(0));
    expect(h.tracker.lastCommand).toMatchObject({ headLines: ['1', '2', '3'], lineFeeds: 20 });
  });

  it('joins a soft-wrapped output line into one head line', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    const wide = 'w'.repeat(95); // 40 columns: three rows
    await h.feed(`echo ${wide}\r\n${mark.C()}${wide}\r\nnext\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.headLines).toEqual([wide, 'next']);
  });

  it('starts the head lines again at the top of the screen after clear (the real program’s bytes)', async () => {
    const clear = execFileSync('clear', { env: { ...process.env, TERM: 'xterm-256color' }, encoding: 'latin1' });
    expect(clear).toContain('\x1b[2J'); // ED 2: what the tracker acts on
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    await h.feed(`echo before; clear; echo after\r\n${mark.C()}before\r\n${clear}after\r\n${finished(0)}`);
    expect(h.tracker.lastCommand).toMatchObject({ headLines: ['after'], lineFeeds: 1 });
  });

  it('keeps the end row’s text at D, before the prompt is drawn on it (output without a final newline)', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    await h.feed(`printf foo\r\n${mark.C()}foo${finished(0)}`);
    expect(h.tracker.lastCommand).toMatchObject({ endRowText: 'foo', headLines: [], lineFeeds: 0 });
    expect(h.term.buffer.active.getLine(h.term.buffer.active.baseY + h.term.buffer.active.cursorY)?.translateToString(true)).toBe('foo$ ');
  });

  it('locates the output in the transcript: from the start of the chunk with C to the end of the chunk with D', async () => {
    const h = harness();
    const first = `${mark.cwd('/home/u')}${prompt()}echo hi\r\n`;
    await h.feed(first);
    const second = `${mark.C()}hi\r\n`;
    await h.feed(second);
    const third = 'more\r\n';
    await h.feed(third);
    const fourth = finished(0);
    await h.feed(fourth);
    const at = (...chunks: string[]): number => chunks.reduce((sum, chunk) => sum + Buffer.byteLength(chunk), 0);
    expect(h.tracker.lastCommand).toMatchObject({ startByte: at(first), endByte: at(first, second, third, fourth) });
  });

  it('headFrom: keeps head lines from that line on (a replay paging through an output)', async () => {
    const h = harness({ headLines: 2, headFrom: 5 });
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    await h.feed(`seq 1 10\r\n${mark.C()}${Array.from({ length: 10 }, (_, i) => `${i + 1}\r\n`).join('')}${finished(0)}`);
    expect(h.tracker.lastCommand).toMatchObject({ headLines: ['6', '7'], lineFeeds: 10 });
  });

  it('says when line feeds may be skipped uncounted: not while a command still collects head lines, never in a replay', async () => {
    const h = harness({ headLines: 2 });
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    expect(h.tracker.canSkipLineFeeds).toBe(true); // no command
    expect(h.tracker.headLinesMissing).toBe(0);
    await h.feed(`seq 1 3\r\n${mark.C()}1\r\n`);
    expect(h.tracker.canSkipLineFeeds).toBe(false);
    expect(h.tracker.headLinesMissing).toBe(1);
    await h.feed('2\r\n');
    expect(h.tracker.canSkipLineFeeds).toBe(true);
    expect(h.tracker.headLinesMissing).toBe(0);
    h.tracker.skipLineFeeds(1000); // what fastForward.ts skipped instead of parsing
    await h.feed(`3\r\n${finished(0)}`);
    expect(h.tracker.lastCommand?.lineFeeds).toBe(1003);

    const replay = harness({ headLines: 2, headFrom: 0 });
    await replay.feed(`${mark.cwd('/home/u')}${prompt()}`);
    expect(replay.tracker.canSkipLineFeeds).toBe(false);
  });
});

describe('CommandTracker: as an addon', () => {
  it('reads no more marks once disposed', async () => {
    const h = harness();
    await h.feed(`${mark.cwd('/home/u')}${prompt()}`);
    h.tracker.dispose();
    await h.feed(`echo hi\r\n${mark.C()}hi\r\n${finished(0, '/elsewhere')}`);
    expect(h.started).toEqual([]);
    expect(h.tracker.cwd).toBe('/home/u');
    expect(h.prompts).toBe(1);
  });
});
