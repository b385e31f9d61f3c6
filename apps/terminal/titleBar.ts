/**
 * The bar over the terminal: the session's state and name, what runs in it, a note when the
 * view cannot follow it, and the link that opens it in Switchboard's window. Plain DOM: a
 * handful of text nodes do not pay for a template library.
 */

interface TitleFacts {
  session: string;
  name?: string;
  state: string;
  input_kind?: string;
  command?: string;
  exit_code?: number | null;
}

const STATE_LABELS: Record<string, string> = {
  idle: 'idle',
  running: 'running',
  awaiting_input: 'needs input',
  exited: 'exited',
};

export class TitleBar {
  private readonly state: HTMLElement;
  private readonly label: HTMLElement;
  private readonly command: HTMLElement;
  private readonly note: HTMLElement;
  private readonly link: HTMLButtonElement;
  private address: string | undefined;

  constructor(root: HTMLElement, onOpen: (address: string) => void) {
    this.state = must(root, '.state');
    this.label = must(root, '.label');
    this.command = must(root, '.command');
    this.note = must(root, '.note');
    this.link = must(root, '.open') as HTMLButtonElement;
    this.link.addEventListener('click', () => {
      if (this.address) onOpen(this.address);
    });
  }

  show(facts: TitleFacts): void {
    const state =
      facts.state === 'exited' && facts.exit_code !== null && facts.exit_code !== undefined
        ? `exited ${facts.exit_code}`
        : (STATE_LABELS[facts.state] ?? facts.state);
    this.state.textContent = state;
    this.state.dataset.state = facts.state;
    this.label.textContent = facts.name ? `${facts.name} · ${facts.session}` : facts.session;
    this.command.textContent = facts.state === 'running' && facts.command ? facts.command : '';
    this.command.title = this.command.textContent;
  }

  /** A line under the title: why the view stopped, or what it waits for. */
  setNote(text: string, tone: 'info' | 'warn' = 'info'): void {
    this.note.textContent = text;
    this.note.dataset.tone = tone;
    this.note.hidden = text === '';
  }

  /** The hub's UI address for the session; the button shows once there is one the host can open. */
  setAddress(address: string | undefined, hostOpensLinks: boolean): void {
    this.address = address;
    this.link.hidden = !address || !hostOpensLinks;
    this.link.title = address ? `Open this session in Switchboard (${address})` : '';
  }
}

function must(root: HTMLElement, selector: string): HTMLElement {
  const element = root.querySelector<HTMLElement>(selector);
  if (!element) throw new Error(`the view's page lacks ${selector}`);
  return element;
}
