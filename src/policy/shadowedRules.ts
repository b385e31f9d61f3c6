import { exampleCommands, lastStage, matchStage, parsePattern } from './pattern.js';
import type { PolicyRule } from './rules.js';

/** A warning about one rule of the list: its place (from 0) and a sentence for the settings page. */
export interface RuleWarning {
  index: number;
  message: string;
}

/**
 * Deny rules that an earlier allow or ask rule shadows (docs/design.md §2.9): the first rule that
 * matches a command answers, so a command matching both gets the earlier rule's answer and the
 * deny never fires for it. A warning, not a refusal: the person may mean it (an ask for one
 * folder before a deny everywhere). Overlap is judged on the deny rule's own pattern (its words,
 * each alternative of its program), so it may miss an overlap two wildcards share.
 */
export function shadowedDenies(rules: readonly PolicyRule[]): RuleWarning[] {
  const stages = rules.map((rule) => {
    const pattern = parsePattern(rule.match);
    return 'problem' in pattern ? null : lastStage(pattern);
  });
  const warnings: RuleWarning[] = [];
  rules.forEach((rule, index) => {
    const stage = stages[index];
    if (rule.action !== 'deny' || !stage) return;
    const examples = exampleCommands(stage);
    for (let earlier = 0; earlier < index; earlier++) {
      const before = rules[earlier] as PolicyRule;
      const beforeStage = stages[earlier];
      if (before.action === 'deny' || before.outsideSandbox || !beforeStage) continue;
      if (!examples.some((example) => matchStage(beforeStage, example) !== null)) continue;
      const narrowed = before.cwd || before.client || before.outsideProject ? ' (where its conditions hold)' : '';
      warnings.push({
        index,
        message: `Rule ${earlier} (${before.match}, ${before.action}) comes first and matches commands this deny rule is about${narrowed}: they are ${before.action === 'allow' ? 'allowed' : 'asked'}, not denied. Move this rule above rule ${earlier} if they should be denied.`,
      });
      return;
    }
  });
  return warnings;
}
