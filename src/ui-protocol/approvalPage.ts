/**
 * The approval page a URL elicitation links to (docs/design.md §2.9 "Where the person answers",
 * §4.3): one pending approval, shown with the window's banner, answered over plain HTTP on its
 * own path. The page (renderer/src/approvalPage.ts) and the hub (src/hub/ui/approvalPage.ts)
 * share these shapes.
 *
 *   GET  /approval/<id>/?code=<code>   the link: trades the one-time code for the page's cookie (303)
 *   GET  /approval/<id>/               the page (approval.html, approval.js, app.css beside it)
 *   GET  /approval/<id>/state          ApprovalPageState, as JSON
 *   GET  /approval/<id>/events         the same, as server-sent events, until it has ended
 *   POST /approval/<id>/answer         ApprovalPageAnswer → ApprovalPageState (409 once answered)
 */
import { z } from 'zod';
import { APPROVAL_ANSWERS, UiApprovalSchema } from './sessionShapes.js';

/** The path of an approval's page; `id` as the hub names approvals (`ap-` and 8 hex digits). */
export const APPROVAL_PAGE_PATH = /^\/approval\/(ap-[0-9a-f]{8})\/(|state|events|answer|approval\.js|app\.css)$/;

export const ApprovalPageStateSchema = z.discriminatedUnion('state', [
  /** `wants`: what would happen (`wants to run`, `wants to open`), as the window's banner says it. */
  z.object({ state: z.literal('pending'), approval: UiApprovalSchema, wants: z.string() }),
  /** Answered (anywhere) or withdrawn: the page says how and answers nothing any more. */
  z.object({ state: z.literal('ended'), text: z.string() }),
]);
export type ApprovalPageState = z.infer<typeof ApprovalPageStateSchema>;

export const ApprovalPageAnswerSchema = z.object({
  answer: z.enum(APPROVAL_ANSWERS),
  reason: z.string().max(1000).optional(),
});
export type ApprovalPageAnswer = z.infer<typeof ApprovalPageAnswerSchema>;
