/**
 * The `remotes` setting on the settings page (docs/design.md §4.7, §5.5): one row per remote
 * (its name, its ssh destination, the command that starts Switchboard there, and how its link is
 * now), each removed with a button, and a form that adds one (an ssh config file of its own, as
 * `--ssh-config` gives it) — what `switchboard remote add`
 * and `remove` do. Every change sends the whole list; the hub checks it (the schema of
 * settings.json) and connects or drops the links at once, or refuses it with its reason above.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import type { HubSetting, UiRemote } from '../../../src/ui-protocol/index.js';

export interface RemoteEntry {
  name: string;
  destination: string;
  command?: string;
  sshConfig?: string;
}

const STATE: Record<UiRemote['state'], string> = { connected: 'connected', connecting: 'connecting…', disconnected: 'disconnected' };

/** `setting.saved`: the saved list; `remotes`: how each link is now; `change`: send the new list. */
export function remotesEditor(setting: HubSetting, remotes: readonly UiRemote[], change: (next: RemoteEntry[]) => void): TemplateResult {
  const saved = readRemotes(setting.saved);
  const locked = setting.env !== undefined;
  const statusOf = new Map(remotes.map((remote) => [remote.name, remote]));
  const add = (event: Event): void => {
    event.preventDefault();
    const form = event.target as HTMLFormElement;
    const field = (name: string): string => ((form.elements.namedItem(name) as HTMLInputElement | null)?.value ?? '').trim();
    const entry: RemoteEntry = { name: field('remote-name'), destination: field('remote-destination') };
    const command = field('remote-command');
    if (command !== '') entry.command = command;
    const sshConfig = field('remote-ssh-config');
    if (sshConfig !== '') entry.sshConfig = sshConfig;
    if (entry.name === '' || entry.destination === '') return;
    change([...saved, entry]);
    form.reset();
  };
  return html`<div class="remotes" data-remotes="">
    ${saved.length === 0 ? html`<p class="setting-hint">No remotes: the window shows this machine’s sessions alone.</p>` : nothing}${saved.map((remote) => {
      const status = statusOf.get(remote.name);
      const problem = status && status.state !== 'connected' ? status.problem?.message : undefined;
      return html`<div class="remote-row" data-remote=${remote.name}>
        <span class=${`dot machine-${status?.state ?? 'connecting'}`}></span><span class="remote-name">${remote.name}</span
        ><span class="remote-destination mono" title=${remote.sshConfig ? `ssh -F ${remote.sshConfig}` : 'ssh'}
          >${remote.destination}${remote.command ? html` <span class="remote-command">(${remote.command})</span>` : nothing}</span
        ><span class="remote-state">${status ? STATE[status.state] : ''}${status?.version && status.state === 'connected' ? ` · ${status.version}` : ''}</span
        ><button
          class="link-btn"
          type="button"
          data-remove-remote=${remote.name}
          ?disabled=${locked}
          title=${`Stop showing ${remote.name}; its sessions go on running there`}
          @click=${() => change(saved.filter((other) => other.name !== remote.name))}
        >
          Remove</button
        >${problem ? html`<div class="setting-hint remote-problem">${problem}</div>` : nothing}
      </div>`;
    })}
    <form class="remote-add" @submit=${add}>
      <input class="input text" name="remote-name" placeholder="name (devbox)" spellcheck="false" required ?disabled=${locked} /><input
        class="input text mono"
        name="remote-destination"
        placeholder="ssh destination (user@host)"
        spellcheck="false"
        required
        ?disabled=${locked}
      /><input class="input text mono" name="remote-command" placeholder="command there (default: switchboard)" spellcheck="false" ?disabled=${locked} /><input
        class="input text mono"
        name="remote-ssh-config"
        placeholder="ssh config file (default: ~/.ssh/config)"
        spellcheck="false"
        ?disabled=${locked}
      /><button class="btn" type="submit" data-action="add-remote" ?disabled=${locked}>Add</button>
    </form>
  </div>`;
}

function readRemotes(value: unknown): RemoteEntry[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) => {
    if (typeof item !== 'object' || item === null) return [];
    const record = item as Record<string, unknown>;
    if (typeof record.name !== 'string' || typeof record.destination !== 'string') return [];
    return [
      {
        name: record.name,
        destination: record.destination,
        ...(typeof record.command === 'string' ? { command: record.command } : {}),
        ...(typeof record.sshConfig === 'string' ? { sshConfig: record.sshConfig } : {}),
      },
    ];
  });
}
