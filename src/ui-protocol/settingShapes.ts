/** What the settings page is told of the hub's settings, and of a change that waits for the person. */
import { z } from 'zod';

/**
 * One of the hub's settings as the settings page shows it. Values are JSON: a boolean, a
 * number, a string or a list of strings (`kind`); `null` where an optional setting is unset
 * (`shell`: the person's login shell).
 */
export const HubSettingSchema = z.object({
  key: z.string(),
  /** The page's section (Sessions, Commands, Secrets, Transcripts, Endpoints). */
  group: z.string(),
  label: z.string(),
  hint: z.string().optional(),
  /**
   * `choice`: one of `options`; `rules`: the policy's rules, a list of `{ match, action, … }`
   * (docs/design.md §2.9); `sandbox`: the agents' sandbox, `{ filesystem, writable, denied,
   * network, required }` (§2.10); `remotes`: other machines, a list of `{ name, destination,
   * command?, sshConfig? }` (§4.7).
   */
  kind: z.enum(['boolean', 'number', 'string', 'list', 'choice', 'rules', 'sandbox', 'remotes']),
  options: z.array(z.string()).optional(),
  /** What a number counts: ms, bytes, days, lines, … */
  unit: z.string().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  /** In force in this hub now. */
  value: z.unknown(),
  /** What settings.json and the environment give: differs from `value` until a restart where `applies` is `restart`. */
  saved: z.unknown(),
  default: z.unknown(),
  /** When a change takes effect: sessions opened after it, calls made after it, the hub's hourly checks (retention, the token's age), or the hub's next start. */
  applies: z.enum(['sessions', 'calls', 'hourly', 'restart']),
  /** settings.json sets it (null puts it back to the default). */
  inFile: z.boolean(),
  /** The environment variable that sets it: the page cannot change it while that is set. */
  env: z.string().optional(),
  /**
   * settings.json holds a change of it that waits for the person (`heldSettings`); `saved` is then
   * what is in force, so an edit on the page starts from that, not from the change that waits.
   */
  held: z.boolean().optional(),
  /**
   * Warnings about the saved value that do not refuse it, each naming the rule (from 0) it is
   * about: for the policy's rules, a deny rule an earlier allow or ask rule shadows.
   */
  warnings: z.array(z.object({ index: z.number(), message: z.string() })).optional(),
});
export type HubSetting = z.infer<typeof HubSettingSchema>;

/**
 * A change of settings.json that waits for the person (docs/design.md §5.5): it arrived by hand in
 * the file (`settings.json`) or over a `/ws` connection signed in with the token (`token`), and it
 * loosens the person's rules (or, from the token, is not provably a tightening), so the settings in
 * force stay until the person confirms it (`confirmSettings`) or discards it (`discardSettings`,
 * settings.json gets back what is in force). `id` names this state of the change.
 */
export const HeldSettingsSchema = z.object({
  id: z.string(),
  /** The settings that wait. */
  settings: z.array(z.string()),
  /** Each change, as the banner names it: "policy rule 0 `rm -rf *` deny → removed". */
  changes: z.array(z.object({ setting: z.string(), source: z.enum(['settings.json', 'token']), text: z.string(), loosens: z.boolean() })),
});
export type HeldSettings = z.infer<typeof HeldSettingsSchema>;
