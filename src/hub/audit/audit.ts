/**
 * `<state>/audit.jsonl` (docs/design.md §4.6): one JSON line per tool call — who, when, which tool
 * and session, how it ended, how long it took — and never what was typed or run (a command line may
 * hold a secret; `send` records byte counts only). The file is 0600 in the 0700 state dir.
 *
 * Lines are gathered and appended once per event-loop turn, after the tool's answer went out,
 * in one synchronous append (open + write + close; keeping the file open saved nothing
 * measurable; a busy or slow disk must not hold up answers): lines stay whole and in order, and a failure is caught here. `flush()` writes what
 * is gathered at once (the hub calls it when it stops). Writing never breaks a tool call; the
 * first failure is logged once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { GateRule, ToolAuditEvent } from '../../mcp/server.js';
import type { PolicyAction } from '../../policy/index.js';
import type { Logger } from '../common/logger.js';
import { AUDIT_FILE, type PersonAction, type PersonAuditSink } from './personAudit.js';

/** One audit line of a decision: what answered (a rule, a grant, the person's approval), never the command. */
export interface PolicyAuditEvent {
  client: string;
  tool: 'execute' | 'send' | 'open';
  /** The session it is typed into; null for a request that starts one. */
  session: string | null;
  decision: PolicyAction;
  rule?: GateRule;
  /** The approval that asks the person. */
  approval?: string;
  /** A 30-minute grant allowed it without asking. */
  grant?: true;
  /** It was asked to run outside the OS sandbox. */
  unsandboxed?: true;
}

export class AuditLog {
  readonly file: string;
  private warned = false;
  private modeChecked = false;
  private pending: string[] = [];
  private scheduled: NodeJS.Immediate | undefined;

  constructor(
    stateDir: string,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {
    this.file = path.join(stateDir, AUDIT_FILE);
  }

  /** A tool call, keys in a fixed order: time, actor, client, tool, session, outcome, code?, duration_ms, bytes?, keys?, resize?, mouse?, calls?. */
  toolCall(event: ToolAuditEvent): void {
    this.append({
      time: event.time,
      actor: 'agent',
      client: event.client,
      tool: event.tool,
      session: event.session,
      outcome: event.outcome,
      ...(event.code !== undefined ? { code: event.code } : {}),
      duration_ms: event.duration_ms,
      ...(event.bytes !== undefined ? { bytes: event.bytes } : {}),
      ...(event.keys !== undefined ? { keys: event.keys } : {}),
      ...(event.resize !== undefined ? { resize: { rows: event.resize.rows, cols: event.resize.cols } } : {}),
      ...(event.mouse !== undefined ? { mouse: event.mouse } : {}),
      ...(event.calls !== undefined ? { calls: event.calls } : {}),
    });
  }

  /** The person's actions, in the line format of `personAudit.ts`, through this one writer. */
  personSink(): PersonAuditSink {
    return (entry: PersonAction) =>
      this.append({
        time: new Date().toISOString(),
        actor: 'person',
        action: entry.action,
        ...(entry.channel !== undefined ? { channel: entry.channel } : {}),
        ...(entry.via !== undefined ? { via: entry.via } : {}),
        ...(entry.host !== undefined ? { host: entry.host } : {}),
        ...(entry.session !== undefined ? { session: entry.session } : {}),
        ...(entry.bytes !== undefined ? { bytes: entry.bytes } : {}),
        ...(entry.settings !== undefined ? { settings: entry.settings } : {}),
        ...(entry.client !== undefined ? { client: entry.client } : {}),
        ...(entry.sessions !== undefined ? { sessions: entry.sessions } : {}),
        ...(entry.approval !== undefined ? { approval: entry.approval } : {}),
        ...(entry.answer !== undefined ? { answer: entry.answer } : {}),
        ...(entry.reason !== undefined ? { reason: entry.reason } : {}),
        ...(entry.from !== undefined ? { from: entry.from } : {}),
      });
  }

  /**
   * A decision of the person's policy (docs/design.md §2.9): the rule that answered, the grant
   * or approval involved — never the command line. Keys: time, actor, client, tool, session
   * (null for `open`, or an `execute` that opens its shell), decision, rule?, approval?, grant?,
   * outside_sandbox? (the agent asked to run it outside the OS sandbox).
   */
  policy(event: PolicyAuditEvent): void {
    this.append({
      time: new Date().toISOString(),
      actor: 'policy',
      client: event.client,
      tool: event.tool,
      session: event.session,
      decision: event.decision,
      ...(event.rule ? { rule: { index: event.rule.index, match: event.rule.match } } : {}),
      ...(event.approval !== undefined ? { approval: event.approval } : {}),
      ...(event.grant ? { grant: true } : {}),
      ...(event.unsandboxed ? { outside_sandbox: true } : {}),
    });
  }

  /** Appends one entry as a line (in this turn's batch); never throws. */
  append(entry: Record<string, unknown>): void {
    this.pending.push(`${JSON.stringify(entry)}\n`);
    this.scheduled ??= setImmediate(() => this.flush());
  }

  /** Writes the gathered lines now; never throws. */
  flush(): void {
    if (this.scheduled) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    if (this.pending.length === 0) return;
    const lines = this.pending.join('');
    this.pending = [];
    try {
      fs.appendFileSync(this.file, lines, { mode: 0o600 });
      if (!this.modeChecked) {
        // `mode` applies only when the file is created: tighten one left by an older version.
        fs.chmodSync(this.file, 0o600);
        this.modeChecked = true;
      }
    } catch (error) {
      if (this.warned) return;
      this.warned = true;
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      this.logger.warn(`audit: cannot write ${this.file} (${code}); tool calls go on without being recorded`);
    }
  }
}
