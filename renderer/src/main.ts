/**
 * The page's entry (docs/design.md §5.2): the App over the Bridge this page has — in the Electron
 * window the preload (its page has no network), in a browser the hub's WebSocket.
 */
import { App } from './app.js';
import { PreloadBridge, type PreloadApi } from './preloadBridge.js';
import { WebSocketBridge } from './webSocketBridge.js';

declare global {
  interface Window {
    /** The page, for end-to-end tests (`inspect()`). */
    switchboard?: App;
    /** The Electron window's preload API (main/preload.cts); absent in a browser. */
    switchboardBridge?: PreloadApi;
  }
}

window.switchboard = new App(window.switchboardBridge ? new PreloadBridge(window.switchboardBridge) : new WebSocketBridge());
