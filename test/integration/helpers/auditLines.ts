/**
 * The audit log of an in-process hub (`<state dir>/audit.jsonl`), one parsed object per line.
 * The hub writes it in batches: what it holds is flushed first, through its private `auditLog`
 * (reached here only, so a rename breaks one place).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function auditLines(hub: object, stateDir: string): Record<string, unknown>[] {
  (hub as { auditLog: { flush(): void } }).auditLog.flush();
  const file = path.join(stateDir, 'audit.jsonl');
  if (!fs.existsSync(file)) return [];
  return fs
    .readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
