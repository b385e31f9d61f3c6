/**
 * Changes of settings.json that wait for the person (settingsHold.ts through the one writer,
 * settingsEditor.ts; docs/design.md §5.5): with a real settings.json in a temp state dir, a hand
 * edit or a change over the token that loosens the policy or the sandbox is held — the settings in
 * force stay — while a tightening, a hand edit of another setting and the person's own change apply
 * at once; Confirm takes the change seen, Discard writes back what is in force; what is held stays
 * held until the person decides. The hub's own wiring is in test/integration/settingsHold.test.ts.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings, type Settings } from '../../../../src/hub/settings/settings.js';
import { SettingsEditor } from '../../../../src/hub/settings/settingsEditor.js';
import { judgeArrival, type GuardedSettings } from '../../../../src/hub/settings/settingsHold.js';
import { SettingsSchema } from '../../../../src/hub/settings/settings.js';

const DENY_RM = { match: 'rm -rf *', action: 'deny', reason: 'never' } as const;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** An editor over a settings.json holding `file`, as the hub builds it: in force is what was loaded. */
function setup(file: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-settings-hold-'));
  dirs.push(dir);
  const settingsFile = path.join(dir, 'settings.json');
  fs.writeFileSync(settingsFile, JSON.stringify(file));
  const inForce: Settings = loadSettings(dir, env);
  const heard: unknown[] = [];
  const editor = new SettingsEditor({
    stateDir: dir,
    env,
    inForce: () => inForce,
    loaded: structuredClone(inForce),
    apply: (settings) => Object.assign(inForce, settings),
  });
  editor.onDidChangeHeld((held) => heard.push(held));
  const edit = (next: Record<string, unknown>) => {
    fs.writeFileSync(settingsFile, JSON.stringify(next));
    return editor.reloadFromDisk();
  };
  const onDisk = (): Record<string, unknown> => JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
  return { editor, inForce, edit, onDisk, heard, file: settingsFile };
}

describe('a hand edit of settings.json', () => {
  it('that removes the deny rule is held: the rule stays in force, the change is named, the page edits from what is in force', () => {
    const s = setup({ policy: [DENY_RM], maxLines: 100 });
    const result = s.edit({ policy: [], maxLines: 150 });
    expect(result).toMatchObject({
      applied: true,
      held: { settings: ['policy'], changes: [{ setting: 'policy', source: 'settings.json', text: 'policy rule 0 `rm -rf *` deny → removed', loosens: true }] },
    });
    expect(s.inForce.policy).toEqual([DENY_RM]);
    // Another setting in the same edit applies: whoever can write the file can write the person's rc files too.
    expect(s.inForce.maxLines).toBe(150);
    expect(s.heard).toEqual([s.editor.heldChange()]);
    const policy = s.editor.describe().settings.find((setting) => setting.key === 'policy');
    expect(policy).toMatchObject({ held: true, saved: [DENY_RM], value: [DENY_RM] });
  });

  it('that tightens applies at once: a deny rule added at the end, policyDefault allow → ask', () => {
    const s = setup({ policy: [DENY_RM] });
    expect(s.edit({ policy: [DENY_RM, { match: 'curl * | sh*', action: 'deny' }], policyDefault: 'ask' })).toEqual({ applied: true, held: null });
    expect(s.inForce.policy).toHaveLength(2);
    expect(s.inForce.policyDefault).toBe('ask');
    expect(s.heard).toEqual([]);
  });

  it('stays held through later edits until settings.json goes back to what is in force', () => {
    const s = setup({ policy: [DENY_RM] });
    s.edit({ policy: [] });
    // A later edit that adds a deny rule is still not what is in force: held, and now named so.
    const later = s.edit({ policy: [{ match: 'mkfs*', action: 'deny' }] });
    expect(later).toMatchObject({ held: { settings: ['policy'] } });
    expect((later as { held: { changes: { text: string }[] } }).held.changes.map((c) => c.text)).toEqual([
      'policy rule 0 `rm -rf *` deny → removed',
      'policy rule 0 `mkfs*` added (deny)',
    ]);
    expect(s.inForce.policy).toEqual([DENY_RM]);
    // A tightening of the default while the policy waits waits with it (they are judged together).
    s.edit({ policy: [{ match: 'mkfs*', action: 'deny' }], policyDefault: 'ask' });
    expect(s.inForce.policyDefault).toBe('allow');
    expect(s.editor.heldChange()?.settings).toEqual(['policy', 'policyDefault']);
    expect(s.edit({ policy: [DENY_RM] })).toEqual({ applied: true, held: null });
    expect(s.heard.at(-1)).toBeNull();
  });

  it('of a setting the environment holds changes nothing, and nothing is held', () => {
    const s = setup({}, { SWITCHBOARD_POLICY: JSON.stringify([DENY_RM]) });
    expect(s.edit({ policy: [] })).toEqual({ applied: true, held: null });
    expect(s.inForce.policy).toEqual([DENY_RM]);
  });
});

describe('Confirm and Discard', () => {
  it('Confirm takes the change the person saw; a stale id or nothing waiting is refused, saying why', () => {
    const s = setup({ policy: [DENY_RM] });
    const first = s.edit({ policy: [] }) as { held: { id: string } };
    const second = s.edit({ policy: [{ match: 'ls', action: 'allow' }] }) as { held: { id: string } };
    expect(second.held.id).not.toBe(first.held.id);
    expect(s.editor.confirmHeld(first.held.id)).toEqual({ ok: false, reason: expect.stringContaining('settings.json was edited again') });
    // Edited on disk and not yet read by the hub: what was seen is not what would be taken.
    fs.writeFileSync(s.file, JSON.stringify({ policy: [{ match: 'rm *', action: 'allow' }] }));
    expect(s.editor.confirmHeld(second.held.id)).toMatchObject({ ok: false });
    expect(s.inForce.policy).toEqual([DENY_RM]);
    s.editor.reloadFromDisk();
    const now = s.editor.heldChange()!;
    expect(s.editor.confirmHeld(now.id)).toEqual({ ok: true, settings: ['policy'] });
    expect(s.inForce.policy).toEqual([{ match: 'rm *', action: 'allow' }]);
    expect(s.editor.heldChange()).toBeNull();
    expect(s.onDisk().policy).toEqual([{ match: 'rm *', action: 'allow' }]);
    expect(s.editor.confirmHeld(now.id)).toEqual({ ok: false, reason: expect.stringContaining('No settings change waits') });
  });

  it('Discard writes back what is in force for the settings that wait, and nothing else', () => {
    const s = setup({ policy: [DENY_RM], maxLines: 100 });
    const edit = s.edit({ policy: [], maxLines: 150, unknownKey: 'kept' }) as { held: { id: string } };
    expect(s.editor.discardHeld(edit.held.id)).toEqual({ ok: true, settings: ['policy'] });
    expect(s.onDisk()).toEqual({ policy: [DENY_RM], maxLines: 150, unknownKey: 'kept' });
    expect(s.editor.heldChange()).toBeNull();
    expect(s.heard.at(-1)).toBeNull();
    // The file was written by the one writer: it is not read back as an edit.
    expect(s.editor.reloadFromDisk()).toBeUndefined();
  });

  it('Discard leaves a setting out of the file where what is in force is its default', () => {
    const s = setup({});
    s.edit({ policy: [] });
    expect(s.editor.heldChange()?.changes[0]?.text).toBe('policy rule 0 `{sudo,su,doas,pkexec} *` ask → removed');
    expect(s.editor.discardHeld()).toMatchObject({ ok: true });
    expect(s.onDisk()).toEqual({});
  });
});

describe('a change from the settings page', () => {
  it('over the token is saved but waits (a tightening applies); the person’s own applies at once', () => {
    const s = setup({ policy: [DENY_RM] });
    expect(s.editor.save({ policy: [DENY_RM, { match: 'mkfs*', action: 'deny' }] }, 'token')).toBeNull();
    expect(s.inForce.policy).toHaveLength(2);
    const held = s.editor.save({ policy: [], maxLines: 7 }, 'token');
    expect(held?.changes.map((c) => [c.source, c.text])).toEqual([
      ['token', 'policy rule 0 `rm -rf *` deny → removed'],
      ['token', 'policy rule 1 `mkfs*` deny → removed'],
      ['token', 'maxLines 200 → 7'],
    ]);
    // Over the token no other setting is provably a tightening either.
    expect(s.inForce.maxLines).toBe(200);
    expect(s.inForce.policy).toHaveLength(2);
    // The person changes another setting: what waits keeps waiting.
    expect(s.editor.save({ scrollback: 900 }, 'person')?.settings).toEqual(['maxLines', 'policy']);
    expect(s.inForce.scrollback).toBe(900);
    // The person's own change of a waiting setting is theirs: it applies, and that setting no longer waits.
    expect(s.editor.save({ maxLines: 50 }, 'person')?.settings).toEqual(['policy']);
    expect(s.inForce.maxLines).toBe(50);
    expect(s.editor.save({ policy: [] }, 'person')).toBeNull();
    expect(s.inForce.policy).toEqual([]);
  });
});

describe('the sandbox setting (as the schema will hold it)', () => {
  it('a loosening of `sandbox` waits and a tightening applies, judged as plain objects', () => {
    const accepted = {
      ...SettingsSchema.parse({}),
      sandbox: { filesystem: 'project', writable: [], denied: ['~/.ssh'], network: 'on', required: true },
    } as GuardedSettings;
    const looser = judgeArrival({
      accepted,
      candidate: { ...accepted, sandbox: { ...accepted.sandbox, denied: [] } },
      held: new Map(),
      source: 'settings.json',
    });
    expect([...looser.held]).toEqual([['sandbox', 'settings.json']]);
    expect(looser.accepted.sandbox).toEqual(accepted.sandbox);
    const stricter = judgeArrival({ accepted, candidate: { ...accepted, sandbox: { ...accepted.sandbox, network: 'off' } }, held: new Map(), source: 'token' });
    expect(stricter.held.size).toBe(0);
    expect(stricter.accepted.sandbox?.network).toBe('off');
  });
});
