import { describe, expect, it } from 'vitest';
import { MAX_INPUT_CHARS, type ClientMessage, type UiSession } from '../../../src/ui-protocol/index.js';
import { TakeOverInput, type TakeOverQuestion } from '../../../renderer/src/takeOverInput.js';
import type { SessionEntry } from '../../../renderer/src/sessionFormat.js';
import { agentSession, entry, personSession } from './fixtures.js';

/** A page around the input: its sessions, its preference, the question's answer (given when the test says). */
function page(sessions: UiSession[], { confirm = true } = {}) {
  const known = new Map<string, SessionEntry>(sessions.map((info) => [info.id, entry(info)]));
  const sent: ClientMessage[] = [];
  const questions: TakeOverQuestion[] = [];
  const focused: string[] = [];
  let answer: (value: { ok: boolean; remember: boolean }) => void = () => undefined;
  const prefs = { confirm };
  const input = new TakeOverInput({
    session: (id) => known.get(id)?.info,
    confirmTakeOver: () => prefs.confirm,
    stopAsking: () => (prefs.confirm = false),
    ask: (question) => {
      questions.push(question);
      return new Promise((resolve) => (answer = resolve));
    },
    send: (message) => sent.push(message),
    focus: (id) => focused.push(id),
  });
  return {
    input,
    sent,
    questions,
    focused,
    prefs,
    answer: (ok: boolean, remember = false) => answer({ ok, remember }),
    /** The hub's news: the session changed (or went, with null). */
    update(id: string, info: UiSession | null): void {
      if (info) known.set(id, entry(info));
      else known.delete(id);
      input.sync(known);
    },
  };
}

const typed = (sent: ClientMessage[]): string[] => sent.flatMap((message) => (message.type === 'input' ? [`${message.session}:${message.data}`] : []));

describe('keys typed into a tab', () => {
  it('go straight to the hub while the person controls the session', async () => {
    const p = page([personSession('mine')]);
    await p.input.typed('mine', 'ls\r');
    expect(p.sent).toEqual([{ type: 'input', session: 'mine', data: 'ls\r' }]);
    expect(p.questions).toEqual([]);
  });

  it('into an ended session, or one the page does not know, go nowhere', async () => {
    const p = page([agentSession('done', { state: 'exited', exit_code: 0 })]);
    await p.input.typed('done', 'x');
    await p.input.typed('unknown', 'x');
    expect(p.sent).toEqual([]);
    expect(p.questions).toEqual([]);
  });

  it('into an agent’s session ask first; yes takes over, and the keys typed meanwhile go out in order once control arrives', async () => {
    const p = page([agentSession('a', { creator: { kind: 'agent', client: 'claude-code 1.2.3' } })]);
    const first = p.input.typed('a', 'x');
    expect(p.questions).toEqual([
      {
        title: 'Take over this session?',
        body: "The agent's writes will be refused until you hand it back. claude-code keeps reading the screen.",
        confirm: 'Take over',
        rememberLabel: 'Don’t ask again',
      },
    ]);
    expect(p.sent).toEqual([]);
    p.answer(true);
    await first;
    expect(p.sent).toEqual([{ type: 'takeOver', session: 'a' }]);
    expect(p.focused).toEqual(['a']);
    expect(p.prefs.confirm).toBe(true); // a yes without “Don’t ask again” asks next time too
    // More keys while the take over is on its way: they wait, and no second question.
    await p.input.typed('a', 'y');
    await p.input.typed('a', 'z');
    expect(typed(p.sent)).toEqual([]);
    expect(p.questions).toHaveLength(1);
    // An update that leaves the agent in control changes nothing.
    p.update('a', agentSession('a', { state: 'running' }));
    expect(typed(p.sent)).toEqual([]);
    p.update('a', agentSession('a', { controller: 'user' }));
    expect(typed(p.sent)).toEqual(['a:xyz']);
    // And from then on, straight through.
    await p.input.typed('a', '!');
    expect(typed(p.sent)).toEqual(['a:xyz', 'a:!']);
  });

  it('no to the question sends nothing, and the next key asks again', async () => {
    const p = page([agentSession('a')]);
    const first = p.input.typed('a', 'x');
    p.answer(false);
    await first;
    expect(p.sent).toEqual([]);
    const second = p.input.typed('a', 'y');
    expect(p.questions).toHaveLength(2);
    p.answer(true);
    await second;
    expect(p.sent).toEqual([{ type: 'takeOver', session: 'a' }]);
  });

  it('“Don’t ask again” is kept: the next take over asks nothing', async () => {
    const p = page([agentSession('a'), agentSession('b')]);
    const first = p.input.typed('a', 'x');
    p.answer(true, true);
    await first;
    expect(p.prefs.confirm).toBe(false);
    await p.input.typed('b', 'y');
    expect(p.questions).toHaveLength(1);
    expect(p.sent).toEqual([
      { type: 'takeOver', session: 'a' },
      { type: 'takeOver', session: 'b' },
    ]);
  });

  it('with the question turned off, typing takes over at once', async () => {
    const p = page([agentSession('a')], { confirm: false });
    await p.input.typed('a', 'x');
    expect(p.questions).toEqual([]);
    expect(p.sent).toEqual([{ type: 'takeOver', session: 'a' }]);
  });

  it('control that arrived while the question was open: the key goes straight through, no take over', async () => {
    const p = page([agentSession('a')]);
    const first = p.input.typed('a', 'x');
    p.update('a', agentSession('a', { controller: 'user' }));
    p.answer(true);
    await first;
    expect(p.sent).toEqual([{ type: 'input', session: 'a', data: 'x' }]);
  });

  it('a refused take over drops the waiting keys; so does the session going', async () => {
    const p = page([agentSession('a'), agentSession('b')], { confirm: false });
    await p.input.typed('a', 'x');
    await p.input.typed('b', 'y');
    p.input.refused('a');
    p.update('b', null);
    p.update('a', agentSession('a', { controller: 'user' }));
    p.update('b', agentSession('b', { controller: 'user' }));
    expect(typed(p.sent)).toEqual([]);
  });

  it('a paste larger than one message allows goes in pieces, in order', async () => {
    const p = page([personSession('mine')]);
    const big = 'a'.repeat(MAX_INPUT_CHARS) + 'b'.repeat(10);
    await p.input.typed('mine', big);
    expect(p.sent.map((message) => (message.type === 'input' ? message.data.length : -1))).toEqual([MAX_INPUT_CHARS, 10]);
    expect(p.sent.map((message) => (message.type === 'input' ? message.data : '')).join('')).toBe(big);
  });
});
