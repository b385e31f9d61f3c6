/**
 * The one-time links a URL elicitation carries (src/hub/gate/approvalLinks.ts, docs/design.md
 * §2.9 "Where the person answers"): one per approval, traded once, within its lifetime, for a page
 * secret bound to that approval alone; dead once the approval is answered anywhere or withdrawn.
 * A real ApprovalBook with a fake clock.
 */
import { describe, expect, it } from 'vitest';
import { APPROVAL_LINK_TTL_MS, ApprovalLinks } from '../../../../src/hub/gate/approvalLinks.js';
import { ApprovalBook, newSlot } from '../../../../src/hub/gate/approvals.js';

function scene(): { book: ApprovalBook; links: ApprovalLinks; clock: { now: number }; ask(key: string): string } {
  const clock = { now: Date.parse('2030-01-01T00:00:00Z') };
  const book = new ApprovalBook(() => clock.now);
  const links = new ApprovalLinks(book, () => clock.now);
  book.onDidChange(() => links.prune());
  const ask = (key: string): string =>
    book.ask({
      slot: newSlot(key),
      session: null,
      tool: 'open',
      command: `touch ${key}`,
      cwd: '/tmp',
      client: 'agent 1.0',
      clientName: 'agent',
      rule: { index: 0, match: 'touch *' },
      reason: 'asks',
    }).id;
  return { book, links, clock, ask };
}

describe('ApprovalLinks', () => {
  it('issues one link per pending approval, none for an unknown one', () => {
    const { links, ask } = scene();
    const id = ask('a');
    expect(links.issue(id)).toMatchObject({ expiresInMs: APPROVAL_LINK_TTL_MS });
    expect(links.issue(id)).toBeUndefined();
    expect(links.issue('ap-00000000')).toBeUndefined();
  });

  it('a code works once, and only for its own approval', () => {
    const { links, ask } = scene();
    const a = ask('a');
    const b = ask('b');
    const { code } = links.issue(a)!;
    expect(links.redeem(b, code)).toEqual({ ok: false, why: 'unknown' });
    const first = links.redeem(a, code);
    expect(first.ok).toBe(true);
    expect(links.redeem(a, code)).toEqual({ ok: false, why: 'used' });
    if (!first.ok) return;
    expect(links.signedIn(a, first.secret)).toBe(true);
    expect(links.signedIn(b, first.secret)).toBe(false);
    expect(links.signedIn(a, undefined)).toBe(false);
  });

  it('expires after its lifetime', () => {
    const { links, clock, ask } = scene();
    const id = ask('a');
    const { code } = links.issue(id)!;
    clock.now += APPROVAL_LINK_TTL_MS + 1;
    expect(links.redeem(id, code)).toEqual({ ok: false, why: 'expired' });
  });

  it('stops working once the approval is answered elsewhere, and the page says how it ended', () => {
    const { book, links, ask } = scene();
    const id = ask('a');
    const { code } = links.issue(id)!;
    expect(links.outstanding).toBe(1);
    book.answer(id, 'allow_once');
    expect(links.outstanding).toBe(0);
    expect(links.redeem(id, code)).toEqual({ ok: false, why: 'ended' });
    expect(links.state(id)).toEqual({ ended: 'answered (allow_once)' });
  });

  it('a withdrawn approval ends its link too', () => {
    const { book, links, ask } = scene();
    const id = ask('a');
    const { code } = links.issue(id)!;
    book.cancel(newSlot('a'), 'the agent cancelled its call');
    expect(links.redeem(id, code)).toEqual({ ok: false, why: 'ended' });
    expect(links.state(id)).toEqual({ ended: 'withdrawn' });
  });

  it('refuses what is not a code without looking it up', () => {
    const { links, ask } = scene();
    const id = ask('a');
    links.issue(id);
    expect(links.redeem(id, 'x')).toEqual({ ok: false, why: 'unknown' });
    expect(links.signedIn(id, '../../etc')).toBe(false);
  });
});
