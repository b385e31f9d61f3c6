/** Short notes in the corner (a kill's outcome, the hub's refusals): at most four, each gone after TOAST_MS. */
import { html, render } from 'lit-html';
import { repeat } from 'lit-html/directives/repeat.js';

const TOAST_MS = 6_000;
const MAX_TOASTS = 4;

interface Toast {
  id: number;
  text: string;
  tone: 'error' | 'info';
}

export class Toasts {
  private shown: Toast[] = [];
  private next = 0;

  constructor(private readonly host: HTMLElement) {}

  show(text: string, tone: 'error' | 'info'): void {
    const toast = { id: (this.next += 1), text, tone };
    this.shown = [...this.shown, toast].slice(-MAX_TOASTS);
    this.draw();
    setTimeout(() => {
      this.shown = this.shown.filter((other) => other !== toast);
      this.draw();
    }, TOAST_MS);
  }

  private draw(): void {
    render(
      repeat(
        this.shown,
        (toast) => toast.id,
        (toast) => html`<div class=${`toast toast-${toast.tone}`} role=${toast.tone === 'error' ? 'alert' : 'status'}>${toast.text}</div>`,
      ),
      this.host,
    );
  }
}
