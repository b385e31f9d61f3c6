/**
 * A fake `electron` module for main/'s tests (no Electron binary can be downloaded here).
 * It records what main/ does: windows created and every show/focus/moveTop on them, app-level
 * activation (app.focus, dock.show), trays and their menus, IPC handlers, notifications, the
 * clipboard. Use with `vi.mock('electron', async () => (await import('./fakeElectron.js')).electronModule)`.
 *
 * Only the surface main/ uses is modelled; a call to anything else fails loudly (undefined is
 * not a function), which is what a test wants.
 */
import { EventEmitter } from 'node:events';
import { vi } from 'vitest';

/** Every call that shows, raises or activates something, in order. */
export const focusCalls: string[] = [];

export class FakeWebFrame {
  constructor(
    public url: string,
    public parent: FakeWebFrame | null = null,
  ) {}
  get origin(): string {
    try {
      return new URL(this.url).origin;
    } catch {
      return 'null';
    }
  }
}

let nextContentsId = 1;

export class FakeWebContents extends EventEmitter {
  readonly id = nextContentsId++;
  readonly mainFrame = new FakeWebFrame('about:blank');
  readonly sent: { channel: string; value: unknown }[] = [];
  windowOpenHandler: ((details: { url: string }) => { action: string }) | undefined;
  permissionRequestHandler: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
  permissionCheckHandler: (() => boolean) | undefined;
  private destroyed = false;
  /** The window's session: its permission handlers, and its events (`will-download`). */
  readonly session = Object.assign(new EventEmitter(), {
    setPermissionRequestHandler: (handler: FakeWebContents['permissionRequestHandler']) => (this.permissionRequestHandler = handler),
    setPermissionCheckHandler: (handler: FakeWebContents['permissionCheckHandler']) => (this.permissionCheckHandler = handler),
  });

  send(channel: string, value?: unknown): void {
    if (this.destroyed) throw new Error('Object has been destroyed');
    this.sent.push({ channel, value });
  }
  getURL(): string {
    return this.mainFrame.url;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setWindowOpenHandler(handler: FakeWebContents['windowOpenHandler']): void {
    this.windowOpenHandler = handler;
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('destroyed');
  }
  /** Messages sent on one channel. */
  sentOn(channel: string): unknown[] {
    return this.sent.filter((m) => m.channel === channel).map((m) => m.value);
  }
}

export class FakeBrowserWindow extends EventEmitter {
  static instances: FakeBrowserWindow[] = [];
  readonly webContents = new FakeWebContents();
  visible = false;
  private destroyed = false;
  loadedUrl: string | undefined;
  readonly show = vi.fn(() => {
    focusCalls.push('window.show');
    this.visible = true;
  });
  readonly showInactive = vi.fn(() => focusCalls.push('window.showInactive'));
  readonly focus = vi.fn(() => focusCalls.push('window.focus'));
  readonly moveTop = vi.fn(() => focusCalls.push('window.moveTop'));
  readonly setAlwaysOnTop = vi.fn(() => focusCalls.push('window.setAlwaysOnTop'));
  readonly restore = vi.fn(() => focusCalls.push('window.restore'));

  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeBrowserWindow.instances.push(this);
  }
  async loadURL(url: string): Promise<void> {
    this.loadedUrl = url;
    this.webContents.mainFrame.url = url;
    // As Electron: the page paints, then finishes loading, asynchronously.
    setTimeout(() => {
      if (this.destroyed) return;
      this.emit('ready-to-show');
      this.webContents.emit('did-finish-load');
    }, 5);
  }
  isVisible(): boolean {
    return this.visible;
  }
  isMinimized(): boolean {
    return false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.webContents.destroy();
    this.emit('closed');
  }
}

export interface FakeMenu {
  template: Record<string, unknown>[];
}

export class FakeTray {
  static instances: FakeTray[] = [];
  image: FakeNativeImage;
  toolTip = '';
  menu: FakeMenu | undefined;
  destroyed = false;
  readonly images: FakeNativeImage[] = [];
  constructor(image: FakeNativeImage) {
    this.image = image;
    this.images.push(image);
    FakeTray.instances.push(this);
  }
  setImage(image: FakeNativeImage): void {
    this.image = image;
    this.images.push(image);
  }
  setToolTip(text: string): void {
    this.toolTip = text;
  }
  setContextMenu(menu: FakeMenu): void {
    this.menu = menu;
  }
  destroy(): void {
    this.destroyed = true;
  }
  on(): this {
    return this;
  }
}

export interface FakeNativeImage {
  path: string;
  template: boolean;
  setTemplateImage(value: boolean): void;
}

export class FakeNotification extends EventEmitter {
  static instances: FakeNotification[] = [];
  static isSupported(): boolean {
    return true;
  }
  readonly show = vi.fn();
  readonly close = vi.fn();
  constructor(readonly options: { title: string; body: string; silent?: boolean }) {
    super();
    FakeNotification.instances.push(this);
  }
}

class FakeIpcMain extends EventEmitter {
  readonly handle = vi.fn();
}

function makeApp() {
  const emitter = new EventEmitter();
  const loginItem = { openAtLogin: false };
  return Object.assign(emitter, {
    isPackaged: false,
    paths: {} as Record<string, string>,
    focus: vi.fn((_options?: unknown) => focusCalls.push('app.focus')),
    show: vi.fn(() => focusCalls.push('app.show')),
    dock: {
      show: vi.fn(async () => {
        focusCalls.push('dock.show');
      }),
      hide: vi.fn(),
      bounce: vi.fn(() => focusCalls.push('dock.bounce')),
    },
    requestSingleInstanceLock: vi.fn(() => true),
    whenReady: vi.fn(() => Promise.resolve()),
    quit: vi.fn(),
    exit: vi.fn(),
    enableSandbox: vi.fn(),
    setPath: vi.fn(function (this: { paths: Record<string, string> }, name: string, value: string) {
      this.paths[name] = value;
    }),
    getPath: vi.fn(function (this: { paths: Record<string, string> }, name: string) {
      return this.paths[name] ?? `/tmp/fake-electron-${name}`;
    }),
    getVersion: vi.fn(() => '0.0.0-test'),
    getLoginItemSettings: vi.fn(() => ({ ...loginItem })),
    setLoginItemSettings: vi.fn((settings: { openAtLogin?: boolean }) => {
      if (settings.openAtLogin !== undefined) loginItem.openAtLogin = settings.openAtLogin;
    }),
  });
}

export const fake = {
  app: makeApp(),
  BrowserWindow: FakeBrowserWindow,
  Tray: FakeTray,
  Notification: FakeNotification,
  Menu: { buildFromTemplate: vi.fn((template: Record<string, unknown>[]): FakeMenu => ({ template })) },
  nativeImage: {
    createFromPath: vi.fn((file: string): FakeNativeImage => {
      const image: FakeNativeImage = {
        path: file,
        template: false,
        setTemplateImage(value: boolean) {
          image.template = value;
        },
      };
      return image;
    }),
  },
  ipcMain: new FakeIpcMain(),
  protocol: { registerSchemesAsPrivileged: vi.fn(), handle: vi.fn() },
  clipboard: { writeText: vi.fn() },
  shell: { openPath: vi.fn(async () => '') },
  contextBridge: { exposeInMainWorld: vi.fn() },
};

/** The module object `vi.mock('electron', …)` returns (named exports and a default). */
export const electronModule = { ...fake, default: fake };

/** The focus-stealing calls made so far, for `expect(...).toEqual([])`. */
export function stolenFocus(): string[] {
  return [...focusCalls];
}

/** Forget recorded calls (keeps the objects, so modules holding them still work). */
export function resetRecords(): void {
  focusCalls.length = 0;
  FakeBrowserWindow.instances.length = 0;
  FakeTray.instances.length = 0;
  FakeNotification.instances.length = 0;
  vi.clearAllMocks();
}

/** An IPC event as Electron builds it, from `contents` and one of its frames. */
export function ipcEvent(
  contents: FakeWebContents,
  frame: FakeWebFrame | null = contents.mainFrame,
): { sender: FakeWebContents; senderFrame: FakeWebFrame | null } {
  return { sender: contents, senderFrame: frame };
}
