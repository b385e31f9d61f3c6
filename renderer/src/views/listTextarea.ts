/**
 * A list edited one item a line (a hub setting of kind `list`, the sandbox's folders and domains):
 * each line trimmed, blank lines dropped. `data-shown` keeps what the textarea shows, as every
 * control of the settings page does, so a redraw can tell the person's edit from the saved value.
 */
import { html, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';

export function listTextarea(name: string, lines: readonly string[], locked: boolean, maxRows: number, changed: (lines: string[]) => void): TemplateResult {
  const text = lines.join('\n');
  const onChange = (event: Event): void => {
    const area = event.target as HTMLTextAreaElement;
    area.dataset.shown = area.value;
    changed(
      area.value
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    );
  };
  return html`<textarea
    class="input list mono"
    name=${name}
    rows=${String(Math.min(maxRows, Math.max(2, lines.length)))}
    ?disabled=${locked}
    spellcheck="false"
    .value=${live(text)}
    data-shown=${live(text)}
    @change=${onChange}
  ></textarea>`;
}
