/**
 * A small modal for the few questions the UI asks (take over, close a session). Resolves with
 * the person's answer; Escape or a click outside cancels, Enter confirms.
 */
import { h } from './dom.js';

export interface ConfirmOptions {
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
    const remember = options.rememberLabel ? h('input', { type: 'checkbox', id: 'dialog-remember' }) : null;
    const finish = (ok: boolean): void => {
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
      } else if (event.key === 'Enter' && document.activeElement !== cancelButton) {
        event.preventDefault();
        event.stopPropagation();
        finish(true);
      }
    };
    const okButton = h('button', { class: `btn ${options.danger ? 'danger' : 'primary'}`, type: 'button', 'data-dialog': 'confirm', onclick: () => finish(true) }, options.confirm);
    const cancelButton = h('button', { class: 'btn', type: 'button', 'data-dialog': 'cancel', onclick: () => finish(false) }, options.cancel ?? 'Cancel');
    const dialog = h(
      'div',
      { class: 'dialog', role: 'dialog', 'aria-modal': 'true', 'aria-label': options.title },
      h('h2', { class: 'dialog-title' }, options.title),
      h('p', { class: 'dialog-body' }, options.body),
      h(
        'div',
        { class: 'dialog-actions' },
        remember ? h('label', { class: 'dialog-remember', for: 'dialog-remember' }, remember, options.rememberLabel ?? '') : h('span'),
        h('span', { class: 'dialog-buttons' }, cancelButton, okButton),
      ),
    );
    const backdrop: HTMLDivElement = h('div', { class: 'backdrop' }, dialog);
    backdrop.addEventListener('mousedown', (event) => {
      if (event.target === backdrop) finish(false);
    });
    document.body.append(backdrop);
    document.addEventListener('keydown', onKey, true);
    okButton.focus();
  });
}
