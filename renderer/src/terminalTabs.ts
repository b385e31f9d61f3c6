/**
 * The terminals of the open tabs: a TerminalView per tab, made when the tab opens and disposed
 * when it closes, only the one in front shown. Each follows its session's size and who
 * controls it (watching at the agent's size, or fitted while the person has the keyboard);
 * the hub's streams for a session (snapshot, frames, behind) go to its view.
 */
import type { ClientMessage, HubMessage } from '../../src/ui-protocol/index.js';
import type { SessionState } from './sessionState.js';
import { TerminalView, type ViewMode } from './terminalView.js';
import type { ThemeName } from './theme.js';

interface TerminalTabsOptions {
  /** Where the views' elements go. */
  container: HTMLElement;
  theme(): ThemeName;
  fontSize(): number;
  send(message: ClientMessage): void;
  /** The person typed into a tab's terminal. */
  onUserData(id: string, data: string): void;
  /** Ctrl/Cmd+F in a terminal. */
  onSearchKey(): void;
}

/** How a session is shown: fitted while the person controls it (and it runs), watched otherwise. */
function viewMode(info: { controller: 'agent' | 'user'; state: string }): ViewMode {
  return info.controller === 'user' && info.state !== 'exited' ? 'fit' : 'watch';
}

export class TerminalTabs {
  private readonly views = new Map<string, TerminalView>();

  constructor(private readonly options: TerminalTabsOptions) {}

  /** The view of a tab. */
  get(id: string | null): TerminalView | undefined {
    return id === null ? undefined : this.views.get(id);
  }

  /** Follows the state: views for tabs opened, none for tabs closed, the one in front shown, sizes and modes. */
  sync(state: SessionState, previous: SessionState): void {
    let opened = false;
    for (const id of state.tabs) {
      const entry = state.sessions.get(id);
      if (!entry || this.views.has(id)) continue;
      const view = new TerminalView({
        sessionId: id,
        theme: this.options.theme(),
        fontSize: this.options.fontSize(),
        ackEvery: state.welcome?.flow.ackEvery ?? 5_000,
        send: this.options.send,
        onUserData: (data) => this.options.onUserData(id, data),
        onNeedsResync: () => {
          this.options.send({ type: 'unsubscribe', session: id });
          this.options.send({ type: 'subscribe', session: id });
        },
        onSearchKey: this.options.onSearchKey,
      });
      view.setSessionSize(entry.info.cols, entry.info.rows);
      view.setMode(viewMode(entry.info));
      view.setVisible(false);
      this.options.container.append(view.element);
      this.views.set(id, view);
      opened = true;
    }
    for (const [id, view] of this.views) {
      if (state.tabs.includes(id)) continue;
      view.dispose();
      this.views.delete(id);
    }
    // Only when the tab in front changes: showing a view lays it out again (and, fitted, restarts its resize debounce).
    if (opened || state.active !== previous.active) for (const [id, view] of this.views) view.setVisible(id === state.active);
    for (const [id, view] of this.views) {
      const entry = state.sessions.get(id);
      const before = previous.sessions.get(id);
      if (!entry || entry === before) continue;
      view.setSessionSize(entry.info.cols, entry.info.rows);
      const mode = viewMode(entry.info);
      view.setMode(mode);
      // Taking over: the person's tab size wins.
      if (mode === 'fit' && before?.info.controller === 'agent' && id === state.active) view.sendFittedSize();
    }
  }

  /** A session's stream goes to its tab's view (none: the tab was closed meanwhile). */
  stream(message: HubMessage): void {
    switch (message.type) {
      case 'snapshot':
        this.views.get(message.session)?.applySnapshot(message);
        break;
      case 'frame':
        this.views.get(message.session)?.applyFrame(message);
        break;
      case 'behind':
        this.views.get(message.session)?.behind();
        break;
      default:
        break;
    }
  }

  setTheme(theme: ThemeName): void {
    for (const view of this.views.values()) view.setTheme(theme);
  }

  setBaseFontSize(px: number): void {
    for (const view of this.views.values()) view.setBaseFontSize(px);
  }
}
