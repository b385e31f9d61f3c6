/**
 * The approval page (docs/design.md §2.9 "Where the person answers"): what a URL elicitation's
 * one-time link opens. One approval, drawn with the window's own banner (views/bannerView.ts),
 * answered over plain HTTP on the page's path (the routes in src/ui-protocol/approvalPage.ts).
 * It follows the approval with server-sent events, so an answer given in the window or the menu
 * shows here at once, and the buttons go.
 */
import { render } from 'lit-html';
import { ApprovalPageStateSchema, type ApprovalAnswer, type ApprovalPageState } from '../../src/ui-protocol/index.js';
import { approvalView } from './views/bannerView.js';
import { resolveTheme, storedPreference } from './theme.js';

const ANSWERED: Record<ApprovalAnswer, string> = {
  allow_once: 'Allowed once: the command runs now.',
  allow_30m: 'Allowed for 30 minutes for this agent and rule: the command runs now.',
  deny: 'Denied: the agent is told, with your reason if you gave one.',
};

const banner = document.getElementById('banner')!;
const status = document.getElementById('approval-status')!;
let busy = false;

document.documentElement.dataset.theme = resolveTheme(storedPreference());

function show(state: ApprovalPageState, note?: string): void {
  document.body.dataset.state = state.state;
  if (state.state === 'pending') {
    banner.hidden = false;
    render(approvalView(state.approval, { onAnswer: (id, answer, reason) => void sendAnswer(answer, reason) }, state.wants), banner);
    status.textContent = note ?? 'Waiting for your answer.';
    return;
  }
  banner.hidden = true;
  render('', banner);
  status.textContent = note ?? state.text;
}

async function sendAnswer(answer: ApprovalAnswer, reason?: string): Promise<void> {
  if (busy) return;
  busy = true;
  try {
    const response = await fetch('answer', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ answer, ...(reason ? { reason } : {}) }),
    });
    const body = (await response.json()) as Record<string, unknown>;
    const parsed = ApprovalPageStateSchema.safeParse(body);
    if (response.ok && parsed.success) return show(parsed.data, ANSWERED[answer]);
    const error = typeof body.error === 'string' ? body.error : `The hub refused the answer (HTTP ${response.status}).`;
    if (parsed.success) show(parsed.data, error);
    else status.textContent = error;
  } catch (error) {
    status.textContent = `The answer did not reach the hub (${(error as Error).message}); answer in the Switchboard window or its menu.`;
  } finally {
    busy = false;
  }
}

// The state now, and when it ends elsewhere (the window, the menu, withdrawn).
const events = new EventSource('events');
events.onmessage = (event: MessageEvent<string>) => {
  const parsed = ApprovalPageStateSchema.safeParse(JSON.parse(event.data));
  if (!parsed.success) return;
  // An answer given here already says what happened; the ended state only confirms it.
  if (parsed.data.state === 'ended' && document.body.dataset.state === 'ended') return events.close();
  show(parsed.data);
  if (parsed.data.state === 'ended') events.close();
};
events.onerror = () => {
  if (document.body.dataset.state !== 'ended') status.textContent = 'Lost the hub: is Switchboard still running? Reload to try again.';
  events.close();
};
