/**
 * The screenshot's font: DejaVu Sans Mono (regular, bold, oblique, bold oblique) from the
 * `dejavu-fonts-ttf` package, registered with @napi-rs/canvas once, under a family name of our
 * own so an installed font of the same name never stands in for it. Read into memory through
 * `fs` (which reads inside app.asar in the packaged app), so the font works wherever the
 * package is. Characters it lacks (CJK, emoji) come from the platform's installed fonts.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';

/** The family the screenshot draws with. */
export const SCREENSHOT_FONT_FAMILY = 'Switchboard Mono';

const FILES = ['DejaVuSansMono.ttf', 'DejaVuSansMono-Bold.ttf', 'DejaVuSansMono-Oblique.ttf', 'DejaVuSansMono-BoldOblique.ttf'];

/** The folder holding the TrueType files. */
function fontDirectory(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('dejavu-fonts-ttf/package.json')), 'ttf');
}

let registered = false;

/** Registers the four faces (once); throws, naming the file, when one cannot be read. */
export function registerScreenshotFonts(globalFonts: { register(font: Buffer, alias?: string): unknown }): void {
  if (registered) return;
  const dir = fontDirectory();
  for (const file of FILES) {
    const key = globalFonts.register(fs.readFileSync(path.join(dir, file)), SCREENSHOT_FONT_FAMILY);
    if (!key) throw new Error(`the screenshot font ${path.join(dir, file)} could not be loaded`);
  }
  registered = true;
}
