/** `<state>/audit.jsonl` (src/hub/audit/audit.ts): one line per call, 0600, and never a thrown error. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../../src/hub/audit/audit.js';
import type { ToolAuditEvent } from '../../../../src/mcp/server.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const event: ToolAuditEvent = {
  time: '2026-01-01T00:00:00.000Z',
  client: 'host 1.0',
  tool: 'send',
  session: 'abc123',
  outcome: 'error',
  code: 'SECRET_PROMPT',
  duration_ms: 4,
  bytes: 7,
  keys: 1,
};

describe('AuditLog', () => {
  it('appends one JSON line per call, in a fixed key order, to a 0600 file', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-audit-'));
    dirs.push(dir);
    const log = new AuditLog(dir, { warn: () => undefined });
    log.toolCall(event);
    log.toolCall({ ...event, outcome: 'ok', code: undefined, bytes: undefined, keys: undefined, tool: 'list', session: null });
    expect(existsSync(log.file)).toBe(false); // written after this turn: the answers go first
    log.flush();
    const lines = readFileSync(log.file, 'utf8').trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(
      '{"time":"2026-01-01T00:00:00.000Z","actor":"agent","client":"host 1.0","tool":"send","session":"abc123","outcome":"error","code":"SECRET_PROMPT","duration_ms":4,"bytes":7,"keys":1}',
    );
    expect(JSON.parse(lines[1]!)).toEqual({ time: event.time, actor: 'agent', client: 'host 1.0', tool: 'list', session: null, outcome: 'ok', duration_ms: 4 });
    expect(statSync(log.file).mode & 0o777).toBe(0o600);
  });

  it('records the size a send asked to resize to, after the key count', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-audit-'));
    dirs.push(dir);
    const log = new AuditLog(dir, { warn: () => undefined });
    log.toolCall({ ...event, outcome: 'ok', code: undefined, bytes: 0, keys: 0, resize: { rows: 30, cols: 100 } });
    log.flush();
    expect(readFileSync(log.file, 'utf8').trimEnd()).toBe(
      '{"time":"2026-01-01T00:00:00.000Z","actor":"agent","client":"host 1.0","tool":"send","session":"abc123","outcome":"ok","duration_ms":4,"bytes":0,"keys":0,"resize":{"rows":30,"cols":100}}',
    );
  });

  it('writes by itself once the turn is over, in order', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sb-audit-'));
    dirs.push(dir);
    const log = new AuditLog(dir, { warn: () => undefined });
    for (const tool of ['execute', 'read', 'kill']) log.toolCall({ ...event, tool });
    await new Promise((resolve) => setImmediate(resolve));
    const tools = readFileSync(log.file, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => (JSON.parse(line) as { tool: string }).tool);
    expect(tools).toEqual(['execute', 'read', 'kill']);
  });

  it('never throws when it cannot write, and warns once', () => {
    const warnings: string[] = [];
    const log = new AuditLog(path.join(tmpdir(), 'sb-audit-missing-dir', 'nested'), { warn: (m) => warnings.push(m) });
    expect(() => {
      log.toolCall(event);
      log.flush();
      log.toolCall(event);
      log.flush();
    }).not.toThrow();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('ENOENT');
  });
});
