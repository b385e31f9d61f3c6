/** The page's icons: inline SVG (stroke, 16×16) as lit-html templates. */
import { html, svg, type TemplateResult } from 'lit-html';

const ICONS = {
  plus: ['M8 3v10', 'M3 8h10'],
  sliders: ['M2.5 4.5h11', 'M2.5 8h11', 'M2.5 11.5h11', 'M10.5 3v3', 'M5.5 6.5v3', 'M9 10v3'],
  gear: [
    'M8 5.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5',
    'M8 1.5v2',
    'M8 12.5v2',
    'M1.5 8h2',
    'M12.5 8h2',
    'M3.4 3.4l1.4 1.4',
    'M11.2 11.2l1.4 1.4',
    'M3.4 12.6l1.4-1.4',
    'M11.2 4.8l1.4-1.4',
  ],
  sun: ['M8 5a3 3 0 1 0 0 6a3 3 0 1 0 0-6', 'M8 1v1.5', 'M8 13.5V15', 'M1 8h1.5', 'M13.5 8H15', 'M3 3l1 1', 'M12 12l1 1', 'M3 13l1-1', 'M12 4l1-1'],
  moon: ['M13 9.5A5.5 5.5 0 0 1 6.5 3a5.5 5.5 0 1 0 6.5 6.5z'],
  search: ['M7 2.5a4.5 4.5 0 1 0 0 9a4.5 4.5 0 1 0 0-9', 'M10.5 10.5L14 14'],
  x: ['M4 4l8 8', 'M12 4l-8 8'],
  up: ['M4 10l4-4l4 4'],
  down: ['M4 6l4 4l4-4'],
  keyboard: ['M1.5 4.5h13v7h-13z', 'M4 7h1', 'M7 7h1', 'M10 7h1', 'M5 9.5h6'],
  hand: ['M3 8.5l3 3.5h6l1.5-5', 'M6 12V3.5a1 1 0 0 1 2 0V8', 'M8 7V2.5a1 1 0 0 1 2 0V8', 'M10 7.5V4a1 1 0 0 1 2 0v4'],
  stop: ['M4 4h8v8H4z'],
  alert: ['M8 2l6.5 11.5h-13z', 'M8 6.5v3', 'M8 11.5v.5'],
  bolt: ['M9 1.5L3.5 9H8l-1 5.5L12.5 7H8z'],
  trash: ['M3 4.5h10', 'M6 4.5V3h4v1.5', 'M4.5 4.5l.7 9h5.6l.7-9'],
  list: ['M5.5 4h8', 'M5.5 8h8', 'M5.5 12h8', 'M2.5 4h.5', 'M2.5 8h.5', 'M2.5 12h.5'],
  clock: ['M8 2.5a5.5 5.5 0 1 0 0 11a5.5 5.5 0 1 0 0-11', 'M8 5v3.2l2.2 1.3'],
  terminal: ['M2 3h12v10H2z', 'M4.5 6l2 2l-2 2', 'M8 10.5h3.5'],
  shield: ['M8 1.5l5 2v4c0 3.2-2.2 5.6-5 7c-2.8-1.4-5-3.8-5-7v-4z'],
  camera: ['M1.5 5h3l1.5-2h4l1.5 2h3v8h-13z', 'M8 6.5a2.5 2.5 0 1 0 0 5a2.5 2.5 0 1 0 0-5'],
} satisfies Record<string, string[]>;

export type IconName = keyof typeof ICONS;

export function icon(name: IconName): TemplateResult {
  return html`<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" class="icon">${ICONS[name].map((d) => svg`<path d=${d}></path>`)}</svg>`;
}
