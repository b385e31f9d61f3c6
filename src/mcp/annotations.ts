/**
 * What each tool tells hosts about itself (docs/design.md §3.6), every hint explicit: hosts act
 * on them. Claude Code runs `readOnlyHint` tools in parallel and allows them in plan mode; VS
 * Code runs them without asking, asks before the others, and for `openWorldHint` tools also
 * before their result reaches the model.
 */
import type { ToolAnnotations } from '@modelcontextprotocol/server';

/**
 * `list`, `read`, `history`, `screenshot`: they look at this hub's sessions and records and
 * change nothing there (`read` view `new` moves only the caller's own cursor), the same
 * arguments may be sent again, and they reach nothing beyond the hub. No `destructiveHint`:
 * the spec gives it meaning only when `readOnlyHint` is false, and the listing's every
 * character is paid for on every turn. No `title` either: the tool's own `title` is shown.
 */
export const LOOKS_ONLY: ToolAnnotations = { readOnlyHint: true, idempotentHint: true, openWorldHint: false };

/**
 * `execute`, `open`, `send`: they run or type into programs, which may delete, overwrite or
 * fetch anything anywhere, and bring back what they printed; the same call twice runs twice.
 */
export const RUNS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/**
 * `kill`: it stops what runs in a session (or closes it), which may lose work; a second call
 * may stop the next command. Open world, as the tools that run: what it stops may be acting
 * beyond the machine (a server, a deploy half done), though its answer carries only state.
 */
export const STOPS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
