/**
 * The banner over the terminal in front, when the session needs a word: a command an agent
 * asked to run waits for the person's approval (Allow once, Allow for 30 min, Deny with an
 * optional reason; docs/design.md §2.9), a secret prompt waits
 * for the person ("needs you", with Take over), the person controls an agent's session (with
 * Hand back), agents control the person's own session, or an agent's session runs without the
 * sandbox because none can start here (the reason and the command that fixes it, §2.10).
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { icon } from './icons.js';
import { isAgentSession, isNeedsYou, type SessionEntry } from '../sessionFormat.js';
import type { ApprovalAnswer, UiApproval, UiSession } from '../../../src/ui-protocol/index.js';

type BannerKind = 'approval' | 'needs-you' | 'control' | 'handed' | 'unsandboxed';

const KIND_CLASS: Record<BannerKind, string> = {
  approval: 'banner-alert banner-approval',
  'needs-you': 'banner-alert',
  control: 'banner-control',
  handed: 'banner-info',
  unsandboxed: 'banner-alert banner-unsandboxed',
};

interface BannerHandlers {
  onTakeOver(id: string): void;
  onHandBack(id: string): void;
  /** The person's answer to an approval (`id` is the approval's). */
  onAnswer(id: string, answer: ApprovalAnswer, reason?: string): void;
}

/** What the banner says about a live session (none for an ended one). */
function bannerKind(info: UiSession): BannerKind | null {
  if (info.state === 'exited') return null;
  if (info.approval) return 'approval';
  if (isNeedsYou(info) && info.controller !== 'user') return 'needs-you';
  if (info.controller === 'user' && isAgentSession(info)) return 'control';
  if (info.controller === 'agent' && !isAgentSession(info)) return 'handed';
  if (isAgentSession(info) && info.sandbox?.off === 'unavailable') return 'unsandboxed';
  return null;
}

export function renderBanner(host: HTMLElement, entry: SessionEntry | null, handlers: BannerHandlers): void {
  const info = entry?.info ?? null;
  const kind = info ? bannerKind(info) : null;
  host.className = kind ? `banner ${KIND_CLASS[kind]}` : 'banner';
  host.hidden = kind === null;
  if (kind) host.dataset.banner = kind;
  else delete host.dataset.banner;
  render(info && kind ? bannerView(kind, info, handlers) : nothing, host);
}

function bannerView(kind: BannerKind, info: UiSession, handlers: BannerHandlers): TemplateResult {
  switch (kind) {
    case 'approval':
      return approvalView(info.approval!, handlers, 'wants to run');
    case 'needs-you':
      return html`<strong>Needs you</strong
        ><span class="banner-text"
          >${info.command ? html`<code title=${info.command}>${clip(info.command, 48)}</code>` : 'The program'} is asking for a password or secret. Take over
          and type it here — it is never recorded.</span
        ><button class="btn accent small" type="button" data-action="banner-take-over" @click=${() => handlers.onTakeOver(info.id)}>Take over</button>`;
    case 'control':
      return html`${icon('keyboard')}<span>You control this session — agents’ writes are refused</span><span class="banner-sep">·</span
        ><button class="link-btn" type="button" data-action="banner-hand-back" @click=${() => handlers.onHandBack(info.id)}>Hand back</button>`;
    case 'handed':
      return html`<span>Agents control this session of yours — typing takes it back.</span>`;
    case 'unsandboxed':
      return unsandboxedView(info.sandbox?.summary ?? '');
  }
}

/** "not sandboxed: <reason>; to fix it: <command>", the command set apart to be copied. */
function unsandboxedView(summary: string): TemplateResult {
  const [reason, fix] = summary.replace(/^not sandboxed: /, '').split('; to fix it: ');
  return html`<strong>Not sandboxed</strong
    ><span class="banner-text">${reason}${fix ? html`; to fix it: <code class="banner-fix">${fix}</code>` : nothing}</span>`;
}

/**
 * One approval's question and answers: who wants to run what, where, under which rule, and
 * Allow once / Allow for 30 min / Deny (with an optional reason). `wants` says what would happen
 * (`wants to run`, `wants to open`). Also the rows of the approvals no session shows yet
 * (newApprovalsView.ts).
 */
export function approvalView(approval: UiApproval, handlers: Pick<BannerHandlers, 'onAnswer'>, wants: string): TemplateResult {
  const rule = approval.rule ? html`rule ${approval.rule.index} <code>${approval.rule.match}</code>` : html`no rule (the line could not be judged)`;
  // The reason field's text goes with Deny; it stays as typed while the banner re-renders.
  const reasonOf = (event: Event): string | undefined => {
    const input = (event.currentTarget as HTMLElement).closest('.banner')?.querySelector<HTMLInputElement>('input.approval-reason');
    const text = input?.value.trim();
    return text ? text : undefined;
  };
  const outside = approval.unsandboxed ? html` <span class="approval-outside">outside the sandbox</span>` : nothing;
  return html`<strong>Needs you</strong
    ><span class="banner-text approval-text"
      ><span class="approval-line"
        >${approval.client} ${wants}${outside} <code class="approval-command" title=${approval.command}>${clip(approval.command, 120)}</code></span
      ><span class="approval-line approval-detail">in <code>${approval.cwd ?? 'an unknown folder'}</code> · ${rule}: ${approval.reason}</span></span
    ><input class="approval-reason" type="text" placeholder="Reason (optional, for Deny)" aria-label="Reason for denying" maxlength="1000" /><button
      class="btn accent small"
      type="button"
      data-action="approval-allow-once"
      @click=${() => handlers.onAnswer(approval.id, 'allow_once')}
    >
      Allow once</button
    ><button
      class="btn small"
      type="button"
      data-action="approval-allow-30m"
      ?disabled=${approval.rule === null}
      title=${approval.rule ? 'This agent, this rule, for 30 minutes' : 'No rule asked: allow it once or deny it'}
      @click=${() => handlers.onAnswer(approval.id, 'allow_30m')}
    >
      Allow for 30 min</button
    ><button
      class="btn small danger"
      type="button"
      data-action="approval-deny"
      @click=${(event: Event) => handlers.onAnswer(approval.id, 'deny', reasonOf(event))}
    >
      Deny
    </button>`;
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
