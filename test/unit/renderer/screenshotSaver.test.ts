/**
 * The page's side of "Save screenshot" (renderer/src/screenshotSaver.ts) without a browser: the
 * file's name, the request it sends, and that one screenshot per session is on its way at a time
 * until the hub answers or the connection drops. The download itself is in test/e2e/uiScreenshot.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { ClientMessage } from '../../../src/ui-protocol/index.js';
import { ScreenshotSaver, screenshotFileName } from '../../../renderer/src/screenshotSaver.js';

describe('screenshotFileName', () => {
  it('is <name>-<yyyymmdd-hhmmss>.png in local time; what a file name cannot hold becomes _', () => {
    const at = new Date(2025, 0, 2, 3, 4, 5);
    expect(screenshotFileName('build', at)).toBe('build-20250102-030405.png');
    expect(screenshotFileName('s3f9a1c', new Date(2025, 11, 31, 23, 59, 58))).toBe('s3f9a1c-20251231-235958.png');
    expect(screenshotFileName('../etc/pass wd', at)).toBe('etc_pass_wd-20250102-030405.png');
    expect(screenshotFileName('tests: ünïcode/日本', at)).toBe('tests_ünïcode_日本-20250102-030405.png');
    expect(screenshotFileName('...', at)).toBe('session-20250102-030405.png');
  });
});

describe('ScreenshotSaver', () => {
  it('asks the hub in the theme given, once per session until the answer comes or the connection drops', () => {
    const sent: ClientMessage[] = [];
    let changes = 0;
    const saver = new ScreenshotSaver(
      (message) => sent.push(message),
      () => (changes += 1),
    );
    saver.save('s1', 'build', 'light');
    expect(sent).toEqual([{ type: 'screenshot', session: 's1', theme: 'light', req: expect.any(Number) }]);
    expect(saver.busy('s1')).toBe(true);
    expect(saver.busy('s2')).toBe(false);
    saver.save('s1', 'build', 'light'); // a second click while it is on its way
    expect(sent).toHaveLength(1);
    const req = (sent[0] as { req: number }).req;
    saver.receive({ type: 'error', code: 'SESSION_NOT_FOUND', message: 'gone', for: 'screenshot', req: req + 1 });
    expect(saver.busy('s1')).toBe(true); // not its answer
    saver.receive({ type: 'error', code: 'SESSION_NOT_FOUND', message: 'gone', for: 'screenshot', req });
    expect(saver.busy('s1')).toBe(false);
    saver.save('s2', null, 'dark');
    expect(sent[1]).toMatchObject({ type: 'screenshot', session: 's2', theme: 'dark' });
    saver.reset();
    expect(saver.busy('s2')).toBe(false);
    expect(changes).toBe(4);
  });
});
