/**
 * Settings reach the core: every `SWITCHBOARD_*` variable (and settings.json key) the core acts
 * on must arrive in its settings. retentionDays, retentionBytes and transcriptMaxBytes once did
 * not (the core's defaults were used whatever the person set).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coreSettings } from '../../../src/hub/hub.js';
import { loadSettings } from '../../../src/hub/settings/settings.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

describe('coreSettings', () => {
  it('passes the transcript and retention settings from the environment to the core', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-settings-'));
    dirs.push(dir);
    const env = { SWITCHBOARD_TRANSCRIPT_MAX_BYTES: '1234', SWITCHBOARD_RETENTION_DAYS: '3', SWITCHBOARD_RETENTION_BYTES: '5678', SHELL: '/bin/sh' };
    const core = coreSettings(loadSettings(dir, env), env);
    expect(core).toMatchObject({ transcriptMaxBytes: 1234, retentionDays: 3, retentionBytes: 5678, shell: '/bin/sh' });
  });

  it('passes settings.json values too', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-settings-'));
    dirs.push(dir);
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ transcriptMaxBytes: 99, agentScrollback: 300, defaultCols: 90 }));
    const core = coreSettings(loadSettings(dir, {}), { SHELL: '/bin/bash' });
    expect(core).toMatchObject({ transcriptMaxBytes: 99, agentScrollback: 300, cols: 90 });
  });
});
