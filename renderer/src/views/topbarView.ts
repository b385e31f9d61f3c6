/** The top bar's live parts: the connection indicator and the theme toggle's icon. */
import { html, render } from 'lit-html';
import type { ConnectionStatus } from '../bridge.js';
import { icon } from './icons.js';
import type { ThemeName } from '../theme.js';

interface TopbarElements {
  app: HTMLElement;
  conn: HTMLElement;
  themeToggle: HTMLElement;
}

export function renderTopbar(el: TopbarElements, status: ConnectionStatus, hubVersion: string | undefined, theme: ThemeName): void {
  const label = status === 'open' ? 'connected' : status === 'connecting' ? 'connecting…' : 'disconnected — reconnecting…';
  el.conn.className = `conn conn-${status}`;
  el.conn.title = status === 'open' ? `Hub ${hubVersion ?? ''}` : 'The page reconnects by itself.';
  render(html`<span class="conn-dot"></span>${label}`, el.conn);
  render(icon(theme === 'dark' ? 'sun' : 'moon'), el.themeToggle);
  el.themeToggle.title = theme === 'dark' ? 'Light theme' : 'Dark theme';
  el.app.dataset.connection = status;
}
