/**
 * The sidebar: every session, grouped by agent or by project folder (sessionGroups.ts), each
 * row with badges for its creator, its controller and its state. When the hub links other
 * machines (docs/design.md §4.7) the groups are under one heading per machine, each remote's
 * saying whether it is connected and, if not, why. Groups and rows are keyed:
 * each is made once and updated in place, so the row in focus or under the pointer stays the
 * same element while agents change their sessions many times a second (a row that moves to
 * another group, in folder mode after a `cd`, is made anew there).
 */
import { html, type TemplateResult } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';
import { icon } from './icons.js';
import { creatorDetail, creatorName, isAgentSession, isNeedsYou, sessionTitle, shortPath, stateBadge, type SessionEntry } from '../sessionFormat.js';
import type { UiRemote } from '../../../src/ui-protocol/index.js';
import { groupSessions, machineSections, type GroupMode, type MachineSection, type SessionGroup } from '../sessionGroups.js';

interface SessionListProps {
  entries: SessionEntry[];
  /** The other machines (none: the sidebar is this machine's alone, without a heading). */
  remotes: readonly UiRemote[];
  mode: GroupMode;
  active: string | null;
  open: ReadonlySet<string>;
  /** `performance.now()` of this drawing (running times). */
  now: number;
  onOpen(id: string): void;
  onGroupMode(mode: GroupMode): void;
  /** Stop everything this agent client started (docs/design.md §2.8), on this machine or the remote `host`. */
  onStopClient(client: string, live: number, host?: string): void;
}

export function sessionListView(props: SessionListProps): TemplateResult {
  const seg = (mode: GroupMode, label: string): TemplateResult =>
    html`<button class=${props.mode === mode ? 'seg on' : 'seg'} type="button" data-group=${mode} @click=${() => props.onGroupMode(mode)}>${label}</button>`;
  const groups = (entries: SessionEntry[], host?: string): unknown =>
    repeat(
      groupSessions(entries, props.mode),
      (group) => group.key,
      (group) => groupView(group, props, host),
    );
  return html`<div class="sidebar-head">
      <span class="sidebar-title">Sessions</span>
      <div class="segmented" role="group" aria-label="Group sessions by">${seg('agent', 'Agent')}${seg('folder', 'Folder')}</div>
    </div>
    <div class="session-groups" role="list">
      ${
        props.remotes.length > 0
          ? repeat(
              machineSections(props.entries, props.remotes),
              (section) => section.key,
              (section) => machineView(section, groups(section.entries, section.remote ? section.key : undefined)),
            )
          : props.entries.length === 0
            ? html`<div class="sidebar-empty">No sessions yet.</div>`
            : groups(props.entries)
      }
    </div>`;
}

const MACHINE_STATE: Record<UiRemote['state'], string> = { connected: 'connected', connecting: 'connecting…', disconnected: 'disconnected' };

/** One machine's heading and its groups: a remote's says how its link is, and why it is down. */
function machineView(section: MachineSection, groups: unknown): TemplateResult {
  const remote = section.remote;
  const state = remote?.state ?? 'connected';
  const detail = remote ? `${remote.destination}${remote.version ? ` — Switchboard ${remote.version}` : ''}` : 'The sessions of this machine';
  const problem = remote && remote.state !== 'connected' ? remote.problem?.message : undefined;
  return html`<section class="machine" data-machine=${section.key} data-machine-state=${state}>
    <header class="machine-head" title=${detail}>
      <span class=${`dot machine-${state}`}></span><span class="machine-title">${section.title}</span>${
        remote ? html`<span class="machine-state">${MACHINE_STATE[state]}</span>` : null
      }
    </header>
    ${problem ? html`<div class="machine-problem" role="status">${problem}</div>` : null}${
      section.entries.length === 0 && !problem ? html`<div class="sidebar-empty">No sessions.</div>` : groups
    }
  </section>`;
}

function groupView(group: SessionGroup, props: SessionListProps, host?: string): TemplateResult {
  const attention = group.entries.filter((entry) => isNeedsYou(entry.info)).length;
  return html`<section class="session-group" data-group-key=${group.key}>
    <header class="group-head" title=${group.detail}>
      <span class="group-title">${group.title}</span><span class="group-alert" title="Sessions that need you" ?hidden=${attention === 0}>${attention}</span
      ><span class="group-count">${group.entries.length}</span>${stopClientButton(group, props, host)}
    </header>
    ${repeat(
      group.entries,
      (entry) => entry.info.id,
      (entry) => rowView(entry, props),
    )}
  </section>`;
}

/** In an agent's group (grouped by agent): stop every live session that agent opened. */
function stopClientButton(group: SessionGroup, props: SessionListProps, host?: string): TemplateResult | null {
  if (props.mode !== 'agent' || !group.key.startsWith('agent:')) return null;
  const client = group.key.slice('agent:'.length);
  const live = group.entries.filter((entry) => entry.info.state !== 'exited').length;
  if (live === 0) return null;
  return html`<button
    class="icon-btn small group-stop"
    type="button"
    data-stop-client=${client}
    title=${`Stop everything ${client} started (${live} live)`}
    aria-label=${`Stop everything ${client} started`}
    @click=${(event: Event) => {
      event.stopPropagation();
      props.onStopClient(client, live, host);
    }}
  >
    ${icon('stop')}
  </button>`;
}

function rowView(entry: SessionEntry, props: SessionListProps): TemplateResult {
  const info = entry.info;
  const badge = stateBadge(entry, props.now);
  const agent = isAgentSession(info);
  const busy = info.state === 'running' || info.state === 'awaiting_input';
  const controllerDefault = (agent && info.controller === 'agent') || (!agent && info.controller === 'user');
  const rowClass = `session-row tone-${badge.tone}${info.id === props.active ? ' active' : ''}${props.open.has(info.id) ? ' open' : ''}${info.state === 'exited' ? ' exited' : ''}`;
  const sub = busy ? (info.command ?? shortPath(info.cwd)) : props.mode === 'agent' ? shortPath(info.cwd) : creatorName(info);
  return html`<button
    class=${rowClass}
    type="button"
    role="listitem"
    data-session=${info.id}
    data-state=${isNeedsYou(info) ? 'needs_you' : info.state}
    @click=${() => props.onOpen(info.id)}
  >
    <span class=${`dot tone-${badge.tone}`}></span
    ><span class="row-main"
      ><span class="row-title" title=${`${sessionTitle(info)} (${info.id})`}>${sessionTitle(info)}</span
      ><span class=${busy ? 'row-sub mono' : 'row-sub'} title=${busy ? (info.command ?? '') : (info.cwd ?? '')}>${sub}</span></span
    ><span class="row-side"
      ><span class=${`badge tone-${badge.tone}`} title=${badge.title}>${badge.text}</span
      ><span class="row-chips"
        ><span class=${`chip creator ${agent ? 'agent' : 'user'}`} title=${creatorDetail(info)}>${agent ? 'agent' : 'you'}</span
        ><span
          class=${`chip controller${controllerDefault ? ' quiet' : ' loud'}`}
          title=${info.controller === 'user' ? 'You control the keyboard' : 'Agents control the keyboard'}
          >${info.controller === 'user' ? '⌨ you' : '⌨ agent'}</span
        ></span
      ></span
    >
  </button>`;
}
