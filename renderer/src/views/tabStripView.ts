/**
 * The tab strip: one tab per open session (label, state dot, "you control it" flag, "needs
 * you"), keyed by session, so the tab under the pointer (its tooltip, a press on it) or in
 * focus stays the same element while agents change their sessions. A middle click closes.
 */
import { html, type TemplateResult } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import { icon } from './icons.js';
import { creatorDetail, isAgentSession, isNeedsYou, stateBadge, tabLabel, type SessionEntry } from '../sessionFormat.js';

interface TabStripProps {
  tabs: SessionEntry[];
  active: string | null;
  /** Tabs behind another one with output since they were last in front. */
  activity: ReadonlySet<string>;
  now: number;
  onActivate(id: string): void;
  onClose(id: string): void;
}

export function tabStripView(props: TabStripProps): TemplateResult {
  return html`${repeat(
    props.tabs,
    (entry) => entry.info.id,
    (entry) => tabView(entry, props),
  )}`;
}

function tabView(entry: SessionEntry, props: TabStripProps): TemplateResult {
  const info = entry.info;
  const id = info.id;
  const badge = stateBadge(entry, props.now);
  const active = id === props.active;
  const activity = !active && props.activity.has(id);
  const middleClick = (event: MouseEvent): void => {
    if (event.button !== 1) return;
    event.preventDefault();
    props.onClose(id);
  };
  const close = (event: Event): void => {
    event.stopPropagation();
    props.onClose(id);
  };
  return html`<div
    class=${`tab tone-${badge.tone}${active ? ' active' : ''}${activity ? ' activity' : ''}${isAgentSession(info) ? ' agent' : ' user'}`}
    role="tab"
    data-tab=${id}
    aria-selected=${active ? 'true' : 'false'}
    title=${`${creatorDetail(info)} · ${info.cwd ?? ''}`}
    @mousedown=${middleClick}
    @click=${() => props.onActivate(id)}
  >
    <span class=${`dot tone-${badge.tone}`}></span><span class="tab-label">${tabLabel(info)}</span
    ><span class="tab-flag" title="You control this session" ?hidden=${!(info.controller === 'user' && isAgentSession(info))}>⌨</span
    ><span class="tab-needs" ?hidden=${!isNeedsYou(info)}>needs you</span
    ><button class="tab-close" type="button" title="Close the tab (the session keeps running)" aria-label="Close tab" @click=${close}>${icon('x')}</button>
  </div>`;
}
