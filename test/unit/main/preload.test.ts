/**
 * The preload as Electron's sandbox runs it: main/preload.cts compiled to CommonJS (as
 * `tsc -p main/tsconfig.json` emits dist/main/preload.cjs) and evaluated with a `require` that
 * knows only `electron` — a fake one with contextBridge and ipcRenderer. It must expose
 * exactly its named functions on `switchboardBridge`, never ipcRenderer or an IPC event.
 */
import { EventEmitter } from 'node:events';
import * as fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as vm from 'node:vm';
import ts from 'typescript';
import { describe, expect, it, vi } from 'vitest';
import { IPC_CHANNELS } from '../../../main/ipc.js';

const SOURCE = fileURLToPath(new URL('../../../main/preload.cts', import.meta.url));

function loadPreload() {
  const compiled = ts.transpileModule(fs.readFileSync(SOURCE, 'utf8'), {
    fileName: 'preload.cts',
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
  }).outputText;

  const ipcRenderer = Object.assign(new EventEmitter(), { send: vi.fn(), sendSync: vi.fn(), invoke: vi.fn() });
  const exposed = new Map<string, unknown>();
  const contextBridge = { exposeInMainWorld: vi.fn((key: string, api: unknown) => exposed.set(key, api)) };
  const required: string[] = [];
  // Electron's sandboxed preload `require`: electron (and a few Node-ish shims); no files.
  const sandboxRequire = (name: string): unknown => {
    required.push(name);
    if (name === 'electron') return { contextBridge, ipcRenderer };
    throw new Error(`module not found: ${name} (a sandboxed preload cannot require it)`);
  };
  const module = { exports: {} };
  const wrapper = vm.runInNewContext(`(function (exports, require, module) {${compiled}\n})`, { console }, { filename: 'preload.cjs' }) as (
    exports: unknown,
    require: (name: string) => unknown,
    module: unknown,
  ) => void;
  wrapper(module.exports, sandboxRequire, module);
  return { ipcRenderer, exposed, contextBridge, required };
}

type Api = Record<string, (...args: unknown[]) => unknown>;

describe('preload', () => {
  it('requires only electron and exposes one global with exactly its named functions', () => {
    const { exposed, contextBridge, required } = loadPreload();
    expect(required).toEqual(['electron']);
    expect(contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    expect([...exposed.keys()]).toEqual(['switchboardBridge']);
    const api = exposed.get('switchboardBridge') as Api;
    expect(Object.keys(api).sort()).toEqual(['connect', 'onAppCommand', 'onAppSettings', 'onMessage', 'onStatus', 'send', 'setAppSettings']);
    for (const value of Object.values(api)) expect(typeof value).toBe('function');
  });

  it('never hands the page ipcRenderer, nor an IPC event', () => {
    const { exposed, ipcRenderer } = loadPreload();
    const api = exposed.get('switchboardBridge') as Api;
    expect(Object.values(api)).not.toContain(ipcRenderer);
    const received: unknown[][] = [];
    api.onMessage!((...args: unknown[]) => received.push(args));
    const fakeEvent = { sender: ipcRenderer, senderId: 0, ports: [] };
    ipcRenderer.emit(IPC_CHANNELS.message, fakeEvent, { type: 'sessions', sessions: [] });
    expect(received).toEqual([[{ type: 'sessions', sessions: [] }]]);
    // What the functions return is data or an unsubscribe function, never an Electron object.
    expect(api.send!({ type: 'hello', protocol: 1 })).toBeUndefined();
    expect(api.connect!()).toBeUndefined();
  });

  it('speaks the channels main listens on (ipc.ts IPC_CHANNELS)', () => {
    const { exposed, ipcRenderer } = loadPreload();
    const api = exposed.get('switchboardBridge') as Api;
    expect(ipcRenderer.eventNames().sort()).toEqual([IPC_CHANNELS.command, IPC_CHANNELS.message, IPC_CHANNELS.status, IPC_CHANNELS.appSettings].sort());

    api.connect!();
    api.connect!(); // once per page
    expect(ipcRenderer.send.mock.calls).toEqual([[IPC_CHANNELS.connect]]);
    api.send!({ type: 'subscribe', session: 'abc123' });
    expect(ipcRenderer.send).toHaveBeenLastCalledWith(IPC_CHANNELS.send, { type: 'subscribe', session: 'abc123' });

    const statuses: unknown[] = [];
    const commands: unknown[] = [];
    api.onStatus!((s: unknown) => statuses.push(s));
    api.onAppCommand!((c: unknown) => commands.push(c));
    ipcRenderer.emit(IPC_CHANNELS.status, {}, 'open');
    ipcRenderer.emit(IPC_CHANNELS.command, {}, { type: 'watch', session: 'abc123' });
    expect(statuses).toEqual(['open']);
    expect(commands).toEqual([{ type: 'watch', session: 'abc123' }]);

    const settings: unknown[] = [];
    api.onAppSettings!((s: unknown) => settings.push(s));
    ipcRenderer.emit(IPC_CHANNELS.appSettings, {}, { notifications: true, notifyAfterMs: 30_000 });
    expect(settings).toEqual([{ notifications: true, notifyAfterMs: 30_000 }]);
    api.setAppSettings!({ notifications: false });
    expect(ipcRenderer.send).toHaveBeenLastCalledWith(IPC_CHANNELS.setAppSettings, { notifications: false });
  });

  it('unsubscribe stops delivery; a throwing listener does not stop the others', () => {
    const { exposed, ipcRenderer } = loadPreload();
    const api = exposed.get('switchboardBridge') as Api;
    const seen: unknown[] = [];
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    api.onMessage!(() => {
      throw new Error('boom');
    });
    const off = api.onMessage!((m: unknown) => seen.push(m)) as () => void;
    ipcRenderer.emit(IPC_CHANNELS.message, {}, 1);
    off();
    ipcRenderer.emit(IPC_CHANNELS.message, {}, 2);
    expect(seen).toEqual([1]);
    expect(error).toHaveBeenCalled();
    error.mockRestore();
    expect(() => api.onMessage!('not a function')).toThrow(/listener must be a function/);
  });
});
