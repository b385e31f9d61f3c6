/**
 * The policy's rules on the settings page (docs/design.md §2.9, §5.5): one row per rule, in
 * order (the first that matches a command answers for it), each with its pattern, answer,
 * folder, client, "outside the project", "outside the sandbox" and reason; rules are added, removed
 * and moved. A deny rule an earlier rule shadows shows the hub's warning under it. Every
 * change sends the whole list; the hub checks it (the same schema as settings.json) and saves it
 * or refuses it. A refused list stays on the page as typed, each bad rule with the hub's words
 * under it, until it is fixed or reverted: a rule the person typed is not thrown away.
 */
import { html, nothing, type TemplateResult } from 'lit-html';
import { live } from 'lit-html/directives/live.js';
import type { HubSetting } from '../../../src/ui-protocol/index.js';
import { icon } from './icons.js';

type RuleAction = 'allow' | 'ask' | 'deny';

interface Rule {
  match: string;
  action: RuleAction;
  cwd?: string;
  client?: string;
  outsideProject?: boolean;
  outsideSandbox?: boolean;
  reason?: string;
}

const ACTIONS: readonly RuleAction[] = ['allow', 'ask', 'deny'];

/** The list the page sent last and the hub has not taken yet (no answer, or refused). */
let pending: { rules: Rule[]; sent: string } | null = null;

/** The page closed: what was not saved is dropped, and the saved rules show when it opens again. */
export function forgetRuleDrafts(): void {
  pending = null;
}

/** `setting.saved`: the saved list; `error`: the hub's last refusal (of any setting); `redraw`: draw the page again. */
export function policyRulesEditor(setting: HubSetting, error: string | null, change: (rules: Rule[]) => void, redraw: () => void): TemplateResult {
  const saved = readRules(setting.saved);
  if (pending && pending.sent === canonical(saved)) pending = null; // taken
  const refusal = pending && error?.includes('policy') ? error : null;
  const rules = pending?.rules ?? saved;
  const problems = problemsByRule(refusal);
  // The hub's warnings are about the saved list: shown while that is the list on the page.
  const warnings = new Map<number, string[]>();
  if (!pending) for (const warning of setting.warnings ?? []) warnings.set(warning.index, [...(warnings.get(warning.index) ?? []), warning.message]);
  const locked = setting.env !== undefined;
  const send = (next: Rule[]): void => {
    const clean = next.map(tidy);
    pending = { rules: clean, sent: canonical(clean) };
    change(clean);
  };
  // What the page shows now: the list sent last, until the hub's answer draws the page again. The
  // rules of this drawing would lose an edit sent since (a second change before the first's echo).
  const latest = (): Rule[] => pending?.rules ?? rules;
  const edit = (index: number, patch: Partial<Rule>): void => send(latest().map((rule, at) => (at === index ? { ...rule, ...patch } : rule)));
  const move = (index: number, by: number): void => {
    const next = [...latest()];
    const [rule] = next.splice(index, 1);
    if (rule) next.splice(index + by, 0, rule);
    send(next);
  };
  return html`<div class="rules" data-rules="">
    ${rules.length === 0 ? html`<p class="setting-hint">No rules: every command gets the answer below.</p>` : nothing}${rules.map((rule, index) =>
      ruleRow(rule, index, rules.length, problems.get(index) ?? [], warnings.get(index) ?? [], locked, {
        edit,
        move,
        remove: () => send(latest().filter((_, at) => at !== index)),
      }),
    )}
    <div class="rules-actions">
      <button
        class="btn"
        type="button"
        data-action="add-rule"
        ?disabled=${locked}
        @click=${() => {
          // Not sent until it has a pattern: an empty one would only be refused.
          pending = { rules: [...latest(), { match: '', action: 'ask' }], sent: '' };
          redraw();
        }}
      >
        ${icon('plus')}Add rule</button
      >${
        pending && (refusal || pending.sent === '')
          ? html`<button
              class="link-btn"
              type="button"
              data-action="revert-rules"
              @click=${() => {
                pending = null;
                redraw();
              }}
            >
              Back to the saved rules
            </button>`
          : nothing
      }
    </div>
  </div>`;
}

interface RowHandlers {
  edit(index: number, patch: Partial<Rule>): void;
  move(index: number, by: number): void;
  remove(): void;
}

function ruleRow(rule: Rule, index: number, count: number, problems: string[], warnings: string[], locked: boolean, on: RowHandlers): TemplateResult {
  const text = (name: 'match' | 'cwd' | 'client' | 'reason', placeholder: string, extra = ''): TemplateResult => {
    const value = rule[name] ?? '';
    const changed = (event: Event): void => {
      const field = event.target as HTMLInputElement;
      field.dataset.shown = field.value;
      on.edit(index, { [name]: field.value.trim() });
    };
    return html`<input
      class=${`input text rule-${name} ${extra}`}
      type="text"
      name=${name}
      placeholder=${placeholder}
      aria-label=${`${name} of rule ${index}`}
      spellcheck="false"
      ?disabled=${locked}
      .value=${live(value)}
      data-shown=${live(value)}
      @change=${changed}
    />`;
  };
  const action = (event: Event): void => on.edit(index, { action: ACTIONS[(event.target as HTMLSelectElement).selectedIndex] ?? 'ask' });
  return html`<div class=${`rule${problems.length > 0 ? ' refused' : ''}`} data-rule=${String(index)}>
    <div class="rule-line">
      <span class="rule-index" title="Its place in settings.json's list, from 0">${index}</span>${text(
        'match',
        'pattern, e.g. git push --force*',
        'mono',
      )}<select class=${`select rule-action ${rule.action}`} name="action" aria-label=${`answer of rule ${index}`} ?disabled=${locked} @change=${action}>
        ${ACTIONS.map((choice) => html`<option .selected=${live(choice === rule.action)}>${choice}</option>`)}</select
      ><span class="rule-moves"
        ><button class="icon-btn small" type="button" title="Move up" data-rule-move="up" ?disabled=${locked || index === 0} @click=${() => on.move(index, -1)}>
          ${icon('up')}</button
        ><button
          class="icon-btn small"
          type="button"
          title="Move down"
          data-rule-move="down"
          ?disabled=${locked || index === count - 1}
          @click=${() => on.move(index, 1)}
        >
          ${icon('down')}</button
        ><button class="icon-btn small" type="button" title="Remove this rule" data-rule-remove="" ?disabled=${locked} @click=${on.remove}>
          ${icon('x')}
        </button></span
      >
    </div>
    <div class="rule-line rule-conditions">
      ${text('cwd', 'in any folder', 'mono')}${text('client', 'from any client', 'mono')}<label
        class="rule-outside"
        title="Only when a path it names is outside the session's project folder"
        ><input
          type="checkbox"
          name="outsideProject"
          ?disabled=${locked}
          .checked=${live(rule.outsideProject === true)}
          @change=${(event: Event) => on.edit(index, { outsideProject: (event.target as HTMLInputElement).checked })}
        />outside the project</label
      ><label
        class="rule-outside"
        title="Only for commands an agent asked to run outside the sandbox (sandbox: false); allow lets them run there without asking"
        ><input
          type="checkbox"
          name="outsideSandbox"
          ?disabled=${locked}
          .checked=${live(rule.outsideSandbox === true)}
          @change=${(event: Event) => on.edit(index, { outsideSandbox: (event.target as HTMLInputElement).checked })}
        />outside the sandbox</label
      >${text('reason', 'reason shown with the answer')}
    </div>
    ${problems.map(
      (problem) => html`<div class="rule-problem" data-rule-problem=${String(index)}>${problem}</div>`,
    )}${warnings.map((warning) => html`<div class="rule-warning" data-rule-warning=${String(index)}>${icon('alert')}${warning}</div>`)}
  </div>`;
}

/** A rule as saved: empty optional fields and false flags left out, keys in one order. */
function tidy(rule: Rule): Rule {
  return {
    match: rule.match,
    action: rule.action,
    ...(rule.cwd ? { cwd: rule.cwd } : {}),
    ...(rule.client ? { client: rule.client } : {}),
    ...(rule.outsideProject ? { outsideProject: true } : {}),
    ...(rule.outsideSandbox ? { outsideSandbox: true } : {}),
    ...(rule.reason ? { reason: rule.reason } : {}),
  };
}

function canonical(rules: readonly Rule[]): string {
  return JSON.stringify(rules.map(tidy));
}

function readRules(value: unknown): Rule[] {
  if (!Array.isArray(value)) return [];
  return value.filter((rule): rule is Rule => typeof rule === 'object' && rule !== null && typeof (rule as Rule).match === 'string');
}

/** The hub's refusal, cut into what it says of each rule ("policy rule 3 (match): …"). */
function problemsByRule(error: string | null): Map<number, string[]> {
  const problems = new Map<number, string[]>();
  if (!error) return problems;
  for (const found of error.matchAll(/policy rule (\d+)(?: \(([^)]*)\))?:? ([^;]*)/g)) {
    const index = Number(found[1]);
    const what = `${found[2] ? `${found[2]}: ` : ''}${(found[3] ?? '').replace(/\.$/, '')}`;
    problems.set(index, [...(problems.get(index) ?? []), what]);
  }
  return problems;
}
