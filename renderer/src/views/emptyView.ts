/**
 * What the terminal area shows with no tab in front: how to connect an agent when there are
 * no sessions yet, else a prompt to pick one; both offer a terminal of the person's own.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { icon } from './icons.js';

interface EmptyProps {
  noSessions: boolean;
  noTab: boolean;
  onNewTerminal(): void;
}

/** Draws into `host` (the terminal area's overlay); `app` gets `no-tab`, which hides the chrome that needs a tab. */
export function renderEmpty(host: HTMLElement, app: HTMLElement, props: EmptyProps): void {
  host.hidden = !props.noTab;
  app.classList.toggle('no-tab', props.noTab);
  render(!props.noTab ? nothing : props.noSessions ? noSessionsView(props) : pickView(props), host);
}

function newTerminalButton(props: EmptyProps): TemplateResult {
  return html`<button class="btn" type="button" data-action="new-terminal-empty" @click=${() => props.onNewTerminal()}>${icon('plus')}New terminal</button>`;
}

function pickView(props: EmptyProps): TemplateResult {
  return html`<div class="empty-card">
    <h1>Pick a session</h1>
    <p>Choose a session on the left to watch it live, or open a terminal of your own.</p>
    ${newTerminalButton(props)}
  </div>`;
}

function noSessionsView(props: EmptyProps): TemplateResult {
  const hostRow = (host: string, note: string): TemplateResult =>
    html`<li><code>${`switchboard config ${host} --install`}</code><span class="muted">${note}</span></li>`;
  return html`<div class="empty-card" data-empty="no-sessions">
    <div class="empty-icon">${icon('terminal')}</div>
    <h1>No sessions yet</h1>
    <p>Agents open real terminals here over MCP. You watch every session live, and can take over, interrupt or stop it at any time.</p>
    <h2>Connect an agent</h2>
    <ol class="steps">
      <li>
        Add Switchboard to your MCP host:
        <pre class="code"><code>switchboard config claude-code --install</code></pre>
      </li>
      <li>Ask the agent to run something — its session appears here as a tab.</li>
    </ol>
    <details class="other-hosts">
      <summary>Other hosts</summary>
      <ul>
        ${hostRow('cursor', 'Cursor')}${hostRow('claude-desktop', 'Claude Desktop')}${hostRow('vscode', 'VS Code')}
      </ul>
    </details>
    <div class="empty-actions">${newTerminalButton(props)}<span class="muted">or open a terminal of your own</span></div>
  </div>`;
}
