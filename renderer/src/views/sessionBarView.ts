/**
 * The bar over the terminal in front: who made the session, its name and state badge, the
 * scrollback search, and the buttons (take over or hand back, interrupt, kill, close, save a
 * screenshot, the timeline toggle). Made anew only when another session comes to front; otherwise updated in
 * place, so the search box keeps its focus and a button being pressed stays the same element
 * while the agent works (its every command changes the session), or the session ends.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { keyed } from 'lit-html/directives/keyed.js';
import { live } from 'lit-html/directives/live.js';
import { icon, type IconName } from './icons.js';
import type { ScrollbackSearch } from '../scrollbackSearch.js';
import { creatorDetail, creatorName, isAgentSession, sessionTitle, stateBadge, type SessionEntry } from '../sessionFormat.js';

interface SessionBarProps {
  entry: SessionEntry | null;
  now: number;
  timelineOpen: boolean;
  /** A screenshot of this session is on its way (the button waits). */
  shooting: boolean;
  search: ScrollbackSearch;
  onTakeOver(id: string): void;
  onHandBack(id: string): void;
  onInterrupt(id: string): void;
  onKill(id: string): void;
  onClose(id: string): void;
  onScreenshot(id: string): void;
  onToggleTimeline(): void;
  /** The box's words across every session's commands (the history palette). */
  onSearchAll(query: string): void;
}

export function renderSessionBar(host: HTMLElement, props: SessionBarProps): void {
  host.hidden = !props.entry;
  render(props.entry ? keyed(props.entry.info.id, barView(props.entry, props)) : nothing, host);
}

function barView(entry: SessionEntry, props: SessionBarProps): TemplateResult {
  const info = entry.info;
  const agent = isAgentSession(info);
  const state = stateBadge(entry, props.now);
  const search = props.search;
  return html`<div class="sb-title">
      <span class=${`creator-pill ${agent ? 'agent' : 'user'}`} title=${creatorDetail(info)}>${agent ? creatorName(info) : 'You'}</span
      ><span class="sb-name" title=${info.id}>${sessionTitle(info)}</span
      ><span class=${`badge tone-${state.tone}`} title=${state.title}>${state.text}</span>${sandboxBadge(info)}
    </div>
    <div class="sb-search">
      ${icon('search')}<input
        class="search-input"
        type="search"
        placeholder="Search scrollback"
        aria-label="Search scrollback"
        data-role="search"
        .value=${live(search.query)}
        @input=${(event: Event) => search.input((event.target as HTMLInputElement).value)}
        @keydown=${(event: KeyboardEvent) => search.key(event)}
      /><span class="search-count">${search.count}</span
      ><button class="icon-btn small" type="button" title="Previous match (Shift+Enter)" @click=${() => search.previous()}>${icon('up')}</button
      ><button class="icon-btn small" type="button" title="Next match (Enter)" @click=${() => search.next()}>${icon('down')}</button
      ><button
        class="icon-btn small"
        type="button"
        data-action="search-all"
        title="Search every session's commands (Ctrl+Shift+H)"
        aria-label="Search every session's commands"
        @click=${() => props.onSearchAll(search.query)}
      >
        ${icon('clock')}
      </button>
    </div>
    <div class="sb-actions">${actionsView(entry, props)}</div>`;
}

/**
 * Its sandbox (docs/design.md §2.10): "sandboxed", "not sandboxed" where the person let it run
 * outside, and for an agent's session where none could start, "not sandboxed" loud (the banner
 * says the reason and the fix). The summary is the badge's tooltip. The person's own sessions
 * carry none: they never run in it.
 */
function sandboxBadge(info: SessionEntry['info']): TemplateResult | typeof nothing {
  const sandbox = info.sandbox;
  if (!sandbox || sandbox.off === 'person') return nothing;
  if (sandbox.on) return html`<span class="badge tone-ok sandbox-badge" data-sandbox="on" title=${sandbox.summary}>${icon('shield')}sandboxed</span>`;
  // Loud, and short: the banner under the bar says why and how to fix it.
  if (sandbox.off === 'unavailable')
    return html`<span class="badge sandbox-badge off-unavailable" data-sandbox="unavailable" title=${sandbox.summary}>not sandboxed</span>`;
  return html`<span class="badge tone-attention sandbox-badge" data-sandbox="off" title=${sandbox.summary}>not sandboxed</span>`;
}

function actionsView(entry: SessionEntry, props: SessionBarProps): TemplateResult {
  const info = entry.info;
  const id = info.id;
  const live = info.state !== 'exited';
  const agent = isAgentSession(info);
  const button = (action: string, label: string, iconName: IconName, onclick: () => void, extra: string, disabled: boolean, title: string): TemplateResult =>
    html`<button class=${`btn ${extra}`} type="button" data-action=${action} ?disabled=${disabled} title=${title} @click=${onclick}>
      ${icon(iconName)}${label}
    </button>`;
  return html`${
      info.controller === 'user'
        ? button(
            'hand-back',
            agent ? 'Hand back' : 'Hand to agents',
            'hand',
            () => props.onHandBack(id),
            '',
            !live,
            agent ? 'Give the keyboard back to the agent' : 'Let agents type into this session of yours',
          )
        : button(
            'take-over',
            'Take over',
            'keyboard',
            () => props.onTakeOver(id),
            'accent',
            !live,
            'Take the keyboard: agent writes are refused until you hand back',
          )
    }${button('interrupt', 'Interrupt', 'stop', () => props.onInterrupt(id), '', !live, 'Send Ctrl-C')}${button('kill', 'Kill', 'bolt', () => props.onKill(id), '', !live, 'Stop the foreground program: SIGINT, then SIGTERM, then SIGKILL')}${button(
      'close',
      'Close',
      'trash',
      () => props.onClose(id),
      'danger-quiet',
      false,
      'End the session and everything in it',
    )}<button
      class="icon-btn"
      type="button"
      data-action="screenshot"
      ?disabled=${!live || props.shooting}
      title=${live ? 'Save a screenshot of this screen (PNG, in this theme)' : 'The session has ended: the hub no longer has its screen'}
      @click=${() => props.onScreenshot(id)}
    >
      ${icon('camera')}</button
    ><button
      class=${`icon-btn${props.timelineOpen ? ' on' : ''}`}
      type="button"
      title=${props.timelineOpen ? 'Hide the command timeline' : 'Show the command timeline'}
      data-action="toggle-timeline"
      @click=${() => props.onToggleTimeline()}
    >
      ${icon('list')}
    </button>`;
}
