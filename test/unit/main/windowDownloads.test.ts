/**
 * The window's downloads (main/windows.ts): the page's own blobs (a saved screenshot) go on to
 * the system's save dialog; a download of anything else is cancelled and logged. Only
 * `electron` is fake.
 */
import { describe, expect, it, vi } from 'vitest';

vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule);

const { MainWindow } = await import('../../../main/windows.js');
const { FakeBrowserWindow } = await import('./fakeElectron.js');

/** A `will-download` on the window's session: whether main cancelled it. */
function download(session: NodeJS.EventEmitter, url: string): boolean {
  let cancelled = false;
  session.emit('will-download', { preventDefault: () => (cancelled = true) }, { getURL: () => url, getFilename: () => 'x.png' });
  return cancelled;
}

describe('the window’s downloads', () => {
  it('lets the page’s own blobs through, cancels any other download', () => {
    const logger = { info: vi.fn(), warn: vi.fn(), error: vi.fn() };
    const window = new MainWindow({ preload: '/nonexistent/preload.cjs', logger });
    window.showForPerson('tray');
    const session = FakeBrowserWindow.instances.at(-1)!.webContents.session;
    expect(download(session, 'blob:switchboard://ui/8d1f6c1e-5c1a-4c3e-9a55-0b1a2b3c4d5e')).toBe(false);
    expect(download(session, 'https://example.com/payload.sh')).toBe(true);
    expect(download(session, 'blob:https://example.com/8d1f6c1e')).toBe(true);
    expect(download(session, 'blob:switchboard://ui.evil/8d1f6c1e')).toBe(true);
    expect(download(session, 'switchboard://ui/index.html')).toBe(true);
    expect(logger.warn).toHaveBeenCalledWith('window: blocked a download from https://example.com');
    expect(session.listenerCount('will-download')).toBe(1);
    window.close();
  });
});
