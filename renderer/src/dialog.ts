/**
 * A small modal for the few questions the UI asks (take over, close a session, replace the
 * token). Resolves with the person's answer; Escape or a click outside cancels, Enter confirms.
 */
import { html, render } from 'lit-html';

interface ConfirmOptions {
  title: string;
  body: string;
  confirm: string;
  cancel?: string;
  danger?: boolean;
  /** A "don't ask again" checkbox label; its state is returned as `remember`. */
  rememberLabel?: string;
}

export function confirmDialog(options: ConfirmOptions): Promise<{ ok: boolean; remember: boolean }> {
  return new Promise((resolve) => {
    const previous = document.activeElement as HTMLElement | null;
    const backdrop = document.createElement('div');
    backdrop.className = 'backdrop';
    const finish = (ok: boolean): void => {
      const remember = backdrop.querySelector<HTMLInputElement>('#dialog-remember');
      backdrop.remove();
      document.removeEventListener('keydown', onKey, true);
      previous?.focus?.();
      resolve({ ok, remember: ok && remember !== null && remember.checked });
    };
    const onKey = (event: KeyboardEvent): void => {
      if (event.key === 'Escape') {
        event.preventDefault();
        event.stopPropagation();
        finish(false);
      } else if (event.key === 'Enter' && !(document.activeElement instanceof HTMLElement && document.activeElement.dataset.dialog === 'cancel')) {
        event.preventDefault();
        event.stopPropagation();
        finish(true);
      }
    };
    render(
      html`<div class="dialog" role="dialog" aria-modal="true" aria-label=${options.title}>
        <h2 class="dialog-title">${options.title}</h2>
        <p class="dialog-body">${options.body}</p>
        <div class="dialog-actions">
          ${
            options.rememberLabel
              ? html`<label class="dialog-remember" for="dialog-remember"><input type="checkbox" id="dialog-remember" />${options.rememberLabel}</label>`
              : html`<span></span>`
          }<span class="dialog-buttons"
            ><button class="btn" type="button" data-dialog="cancel" @click=${() => finish(false)}>${options.cancel ?? 'Cancel'}</button
            ><button class=${`btn ${options.danger ? 'danger' : 'primary'}`} type="button" data-dialog="confirm" @click=${() => finish(true)}>
              ${options.confirm}
            </button></span
          >
        </div>
      </div>`,
      backdrop,
    );
    backdrop.addEventListener('mousedown', (event) => {
      if (event.target === backdrop) finish(false);
    });
    document.body.append(backdrop);
    document.addEventListener('keydown', onKey, true);
    backdrop.querySelector<HTMLButtonElement>('[data-dialog="confirm"]')?.focus();
  });
}
