/**
 * The banner over the terminal in front, when the session needs a word: a secret prompt waits
 * for the person ("needs you", with Take over), the person controls an agent's session (with
 * Hand back), or agents control the person's own session.
 */
import { html, nothing, render, type TemplateResult } from 'lit-html';
import { icon } from './icons.js';
import { isAgentSession, isNeedsYou, type SessionEntry } from './sessionFormat.js';
import type { UiSession } from '../../src/ui-protocol.js';

export type BannerKind = 'needs-you' | 'control' | 'handed';

const KIND_CLASS: Record<BannerKind, string> = { 'needs-you': 'banner-alert', control: 'banner-control', handed: 'banner-info' };

export interface BannerHandlers {
  onTakeOver(id: string): void;
  onHandBack(id: string): void;
}

/** What the banner says about a live session (none for an ended one). */
export function bannerKind(info: UiSession): BannerKind | null {
  if (info.state === 'exited') return null;
  if (isNeedsYou(info) && info.controller !== 'user') return 'needs-you';
  if (info.controller === 'user' && isAgentSession(info)) return 'control';
  if (info.controller === 'agent' && !isAgentSession(info)) return 'handed';
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
    case 'needs-you':
      return html`<strong>Needs you</strong><span class="banner-text">${info.command ? html`<code title=${info.command}>${clip(info.command, 48)}</code>` : 'The program'} is asking for a password or secret. Take over and type it here — it is never recorded.</span><button class="btn accent small" type="button" data-action="banner-take-over" @click=${() => handlers.onTakeOver(info.id)}>Take over</button>`;
    case 'control':
      return html`${icon('keyboard')}<span>You control this session — agents’ writes are refused</span><span class="banner-sep">·</span><button class="link-btn" type="button" data-action="banner-hand-back" @click=${() => handlers.onHandBack(info.id)}>Hand back</button>`;
    case 'handed':
      return html`<span>Agents control this session of yours — typing takes it back.</span>`;
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
