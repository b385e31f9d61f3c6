/**
 * The policy's settings (docs/design.md §2.9, §5.5): `policy` (ordered rules, DEFAULT_POLICY by
 * default) and `policyDefault` (allow) in the one SettingsSchema; a bad rule is refused naming
 * its place in the list and what is wrong, from settings.json, from SWITCHBOARD_* and from the
 * settings page alike; the page is told how to edit them.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings, SettingsSchema } from '../../../../src/hub/settings/settings.js';
import { SettingsEditor } from '../../../../src/hub/settings/settingsEditor.js';
import { DEFAULT_POLICY } from '../../../../src/policy/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function stateDir(settings?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-policy-settings-'));
  dirs.push(dir);
  if (settings !== undefined) fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
  return dir;
}

function loadError(settings: unknown, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadSettings(stateDir(settings), env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the settings to be refused');
}

describe('policy settings', () => {
  it('default to the starting rules, shown in full, and policyDefault allow', () => {
    const settings = loadSettings(stateDir(), {});
    expect(settings.policy).toEqual(DEFAULT_POLICY);
    expect(settings.policyDefault).toBe('allow');
    // Each load gets its own copy: editing one does not change the default.
    settings.policy.pop();
    expect(SettingsSchema.parse({}).policy).toHaveLength(DEFAULT_POLICY.length);
  });

  it('read rules and the default answer from settings.json, and from SWITCHBOARD_POLICY_DEFAULT / SWITCHBOARD_POLICY', () => {
    const rules = [{ match: 'npm publish*', action: 'deny', reason: 'releases go through CI' }];
    expect(loadSettings(stateDir({ policy: rules, policyDefault: 'ask' }), {})).toMatchObject({ policy: rules, policyDefault: 'ask' });
    expect(loadSettings(stateDir({ policyDefault: 'ask' }), { SWITCHBOARD_POLICY_DEFAULT: 'deny' }).policyDefault).toBe('deny');
    expect(loadSettings(stateDir(), { SWITCHBOARD_POLICY: JSON.stringify(rules) }).policy).toEqual(rules);
    expect(loadError({}, { SWITCHBOARD_POLICY_DEFAULT: 'maybe' })).toContain('policyDefault: must be "allow", "ask" or "deny"');
  });

  it('refuse a bad rule naming its place in the list and what is wrong', () => {
    const policy = [
      { match: 'ls', action: 'allow' },
      { match: 'rm {a,b', action: 'deny' },
      { match: 'git *', action: 'block' },
      { match: 'make', action: 'ask', cwd: 'src', when: 'always' },
      { action: 'ask' },
    ];
    const message = loadError({ policy });
    expect(message).toContain('policy rule 1 (match): "rm {a,b" cannot be read: a `{` has no `}`');
    expect(message).toContain('policy rule 2 (action): must be "allow", "ask" or "deny"');
    expect(message).toContain('policy rule 3 (cwd): must be an absolute folder or start with ~/');
    expect(message).toContain('policy rule 3 has no "when"');
    expect(message).toContain('policy rule 4 (match) must be a string');
    expect(message).not.toContain('policy rule 0');
    expect(loadError({ policy: 'rm *' })).toContain('policy must be a list');
  });

  it('are shown on the settings page as an editable list of rules and a choice, and saved from there', () => {
    const dir = stateDir();
    const inForce = loadSettings(dir, {});
    const applied: unknown[] = [];
    const editor = new SettingsEditor({ stateDir: dir, env: {}, inForce: () => inForce, apply: (settings) => applied.push(settings) });
    const byKey = new Map(editor.describe().settings.map((setting) => [setting.key, setting]));
    expect(byKey.get('policy')).toMatchObject({ kind: 'rules', default: DEFAULT_POLICY, saved: DEFAULT_POLICY, inFile: false, applies: 'calls' });
    expect(byKey.get('policyDefault')).toMatchObject({ kind: 'choice', options: ['allow', 'ask', 'deny'], default: 'allow', saved: 'allow' });

    const rules = [{ match: 'git push*', action: 'ask', client: 'claude*' }];
    editor.save({ policy: rules, policyDefault: 'ask' });
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8'))).toEqual({ policy: rules, policyDefault: 'ask' });
    expect(applied).toHaveLength(1);

    expect(() => editor.save({ policy: [...rules, { match: '', action: 'ask' }] })).toThrow(/Not saved: policy rule 1 \(match\) must not be empty/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'settings.json'), 'utf8')).policy).toEqual(rules);
  });
});
