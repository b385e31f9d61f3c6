/**
 * The person's policy (docs/design.md §2.9): which commands agents may run, ask about, or may
 * not run. The one entry the other layers import.
 */
export { decide, stricter, type PolicyCommand, type PolicyDecision, type PolicyInput, type RuleRef } from './decide.js';
export { DEFAULT_POLICY, POLICY_ACTIONS, PolicyActionSchema, PolicyRuleSchema, type PolicyAction, type PolicyRule } from './rules.js';
export { shadowedDenies, type RuleWarning } from './shadowedRules.js';
