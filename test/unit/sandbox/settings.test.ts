/**
 * The `sandbox` setting (docs/design.md §2.10, §5.5): its defaults, what it refuses and how it
 * says so, from settings.json and SWITCHBOARD_SANDBOX alike, and how the settings page is told
 * of it.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../../../src/hub/settings/settings.js';
import { SettingsEditor } from '../../../src/hub/settings/settingsEditor.js';
import { defaultWritable } from '../../../src/sandbox/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function stateDir(settings?: unknown): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-sandbox-settings-'));
  dirs.push(dir);
  if (settings !== undefined) fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify(settings));
  return dir;
}

function refusal(settings: unknown, env: NodeJS.ProcessEnv = {}): string {
  try {
    loadSettings(stateDir(settings), env);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected the settings to be refused');
}

describe('sandbox settings', () => {
  it('default: project, the package managers’ caches writable, nothing more denied, network on, not required', () => {
    expect(loadSettings(stateDir(), {}).sandbox).toEqual({ filesystem: 'project', writable: defaultWritable(), denied: [], network: 'on', required: false });
    expect(defaultWritable('linux')).toEqual(
      expect.arrayContaining(['~/.npm', '~/.cache', '~/.cargo/registry', '~/go/pkg/mod', '~/.m2', '~/.gradle', '~/.local/share/pnpm', '~/.yarn']),
    );
    expect(defaultWritable('darwin')).toEqual(expect.arrayContaining(['~/Library/Caches/pip', '~/Library/pnpm']));
  });

  it('each part left out keeps its default', () => {
    expect(loadSettings(stateDir({ sandbox: { network: 'off' } }), {}).sandbox).toMatchObject({
      filesystem: 'project',
      network: 'off',
      writable: defaultWritable(),
    });
    expect(loadSettings(stateDir(), { SWITCHBOARD_SANDBOX: '{"network":["registry.npmjs.org","*.github.com"],"required":true}' }).sandbox).toMatchObject({
      network: ['registry.npmjs.org', '*.github.com'],
      required: true,
    });
  });

  it('refuses what it cannot mean, naming the place and what to write instead', () => {
    expect(refusal({ sandbox: { writable: ['node_modules'] } })).toMatch(/sandbox\.writable\.0: must be an absolute path or start with ~\//);
    expect(refusal({ sandbox: { denied: ['./secrets'] } })).toMatch(/sandbox\.denied\.0: must be an absolute path/);
    expect(refusal({ sandbox: { network: ['https://example.com/'] } })).toMatch(/sandbox\.network.*must be a domain such as example\.com or \*\.example\.com/);
    expect(refusal({ sandbox: { network: 'maybe' } })).toMatch(/sandbox\.network/);
    expect(refusal({ sandbox: { filesystem: 'none' } })).toMatch(/sandbox\.filesystem/);
    expect(refusal({ sandbox: { netwrok: 'off' } })).toMatch(/sandbox has no "netwrok"/);
  });

  it('the settings page gets it whole, as kind "sandbox", with its default, applied to sessions opened after a change', () => {
    const editor = new SettingsEditor({ stateDir: stateDir(), env: {}, inForce: () => loadSettings(stateDir(), {}), apply: () => undefined });
    const shown = editor.describe().settings.find((setting) => setting.key === 'sandbox');
    expect(shown).toMatchObject({ kind: 'sandbox', group: 'Sandbox', applies: 'sessions', default: { filesystem: 'project', network: 'on', required: false } });
  });
});
