/**
 * Electron main process entry (placeholder).
 *
 * main/ is Electron-only glue: tray, windows, preload, IPC ↔ ui-protocol. It imports
 * src/hub/ and electron, and holds no business logic (DESIGN §1). For now it only
 * takes the single-instance lock; composing the hub, tray and windows arrives in a
 * later issue.
 */
import { app } from 'electron';

function log(message: string): void {
  // Logs go to stderr, like the rest of Switchboard (CONVENTIONS 9).
  console.error(`[switchboard:main] ${message}`);
}

if (!app.requestSingleInstanceLock()) {
  // The hub's own lock will name the holding process (DESIGN §4); Electron's lock cannot.
  log('another Switchboard app instance is already running; exiting.');
  app.exit(1);
} else {
  app.on('second-instance', () => {
    log('a second instance was started and told to exit; this instance keeps running.');
  });

  void app.whenReady().then(() => {
    log('single-instance lock held. The hub composition (tray, windows, MCP endpoints) arrives in a later issue.');
    app.quit();
  });
}
