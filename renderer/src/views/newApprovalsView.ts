/**
 * The approvals no session shows yet, above the tabs (docs/design.md §2.9, §5.2): an agent's
 * `open`, or an `execute` that would open its own shell outside the sandbox, waits for the person
 * and nothing is started until they answer. Each is a banner like a session's approval, answered
 * the same way (`answerApproval`).
 */
import { html, nothing, render } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import type { ApprovalAnswer, UiNewApproval } from '../../../src/ui-protocol/index.js';
import { approvalView } from './bannerView.js';

interface NewApprovalsHandlers {
  onAnswer(id: string, answer: ApprovalAnswer, reason?: string): void;
}

export function renderNewApprovals(host: HTMLElement, approvals: readonly UiNewApproval[], handlers: NewApprovalsHandlers): void {
  host.hidden = approvals.length === 0;
  render(
    approvals.length === 0
      ? nothing
      : repeat(
          approvals,
          (approval) => approval.id,
          (approval) =>
            html`<div class="banner banner-alert banner-approval" data-banner="new-approval" data-approval=${approval.id}>
              ${approvalView(approval, handlers, approval.tool === 'open' ? 'wants to open' : 'wants to run, in a new shell,')}
            </div>`,
        ),
    host,
  );
}
