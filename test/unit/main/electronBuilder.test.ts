/**
 * Packaging (docs/design.md §6) without building: electron-builder.yml is valid against
 * electron-builder's own schema (app-builder-lib's validateConfiguration, the check
 * `electron-builder` runs first) and holds the settings the design asks for; the afterPack
 * hook flips the fuses, run on a stand-in Electron binary and read back with @electron/fuses.
 */
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const require = createRequire(import.meta.url);
// electron-builder's own YAML reader (a dependency of app-builder-lib).
const yaml = require('js-yaml') as { load(text: string): unknown };

interface Config {
  [key: string]: unknown;
  mac: {
    target: { target: string; arch: string[] }[];
    hardenedRuntime: boolean;
    entitlements: string;
    entitlementsInherit: string;
    extendInfo: Record<string, unknown>;
  };
  linux: { target: string[]; executableName: string };
  asarUnpack: string[];
  files: string[];
  extraResources: { from: string; to: string }[];
  extraMetadata: { main: string };
}

const config = yaml.load(fs.readFileSync(path.join(ROOT, 'electron-builder.yml'), 'utf8')) as Config;

describe('electron-builder.yml', () => {
  it('validates against electron-builder’s schema', async () => {
    const { validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
      validateConfiguration(config: unknown, logger: { isEnabled: boolean; add(): void }): Promise<void>;
    };
    await expect(validateConfiguration(structuredClone(config), { isEnabled: false, add: () => undefined })).resolves.toBeUndefined();
    // The validator is real: a misspelt option fails.
    await expect(
      validateConfiguration({ ...structuredClone(config), mac: { ...config.mac, hardendRuntime: true } }, { isEnabled: false, add: () => undefined }),
    ).rejects.toThrow(/configuration\.mac/);
  });

  it('macOS: dmg for arm64 and x64, LSUIElement, hardened runtime with entitlements', () => {
    expect(config.mac.target).toEqual([{ target: 'dmg', arch: ['arm64', 'x64'] }]);
    expect(config.mac.extendInfo.LSUIElement).toBe(true);
    expect(config.mac.hardenedRuntime).toBe(true);
    for (const file of [config.mac.entitlements, config.mac.entitlementsInherit]) {
      const plist = fs.readFileSync(path.join(ROOT, file), 'utf8');
      expect(plist).toContain('com.apple.security.cs.allow-jit');
      expect(plist).toContain('com.apple.security.cs.disable-library-validation');
    }
  });

  it('Linux: AppImage and deb; the CLI name stays free for the shim', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.linux.executableName).not.toBe('switchboard');
  });

  it('unpacks node-pty (native module + spawn-helper) and the shell integration; no rebuild', () => {
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['node_modules/node-pty/**', 'assets/shell-integration/**', 'node_modules/@photostructure/sqlite/prebuilds/**']),
    );
    expect(config.npmRebuild).toBe(false);
    expect(config.asar).toBe(true);
  });

  it('unpacks the screenshot rasteriser (native) and its font files', () => {
    expect(config.asarUnpack).toEqual(
      expect.arrayContaining(['node_modules/@napi-rs/canvas/**', 'node_modules/@napi-rs/canvas-*/**', 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSansMono*.ttf']),
    );
    // The globs name what the hub loads: the platform package with the binary, and the four faces.
    expect(fs.readdirSync(path.join(ROOT, 'node_modules/@napi-rs')).some((name) => name.startsWith('canvas-'))).toBe(true);
    expect(fs.readdirSync(path.join(ROOT, 'node_modules/dejavu-fonts-ttf/ttf')).filter((name) => /^DejaVuSansMono.*\.ttf$/.test(name))).toHaveLength(4);
  });

  it('ships main, the preload, the renderer, the shim and the tray icons at stable paths', () => {
    expect(config.extraMetadata.main).toBe('dist/main/index.js');
    expect(config.files).toEqual(expect.arrayContaining(['dist/**', 'assets/**', 'bin/switchboard.js', 'package.json']));
    expect(config.extraResources).toEqual([{ from: 'scripts/appCli.sh', to: 'bin/switchboard' }]);
    expect(fs.statSync(path.join(ROOT, 'scripts/appCli.sh')).mode & 0o111).not.toBe(0);
    for (const state of ['idle', 'running', 'attention']) {
      for (const name of [`${state}Template.png`, `${state}Template@2x.png`, `${state}.png`, `${state}@2x.png`]) {
        const png = fs.readFileSync(path.join(ROOT, 'assets', 'tray', name));
        expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
        const width = png.readUInt32BE(16);
        expect(width).toBe(name.includes('@2x') ? 32 : 16);
      }
    }
  });

  it('has an afterPack hook that exists', () => {
    expect(config.afterPack).toBe('scripts/afterPack.cjs');
    expect(fs.existsSync(path.join(ROOT, 'scripts/afterPack.cjs'))).toBe(true);
  });
});

describe('scripts/afterPack.cjs (fuses)', () => {
  const { FuseV1Options, getCurrentFuseWire } = require('@electron/fuses') as typeof import('@electron/fuses');
  const { FuseState, SENTINEL } = require('@electron/fuses/dist/constants.js') as { FuseState: Record<string, number>; SENTINEL: string };
  const afterPack = (require(path.join(ROOT, 'scripts/afterPack.cjs')) as { default: (context: unknown) => Promise<void> }).default;
  let dir: string;

  /** A file with Electron's fuse sentinel and a v1 wire of `length` fuses, all enabled. */
  function standInBinary(file: string, length = 8): void {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const wire = Buffer.alloc(length, FuseState.ENABLE!);
    fs.writeFileSync(file, Buffer.concat([Buffer.from('\x7fELF…padding…'), Buffer.from(SENTINEL), Buffer.from([1, length]), wire, Buffer.from('…tail')]));
  }

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-fuses-'));
    vi.spyOn(console, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.restoreAllMocks();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const context = (platform: string) => ({
    appOutDir: dir,
    electronPlatformName: platform,
    arch: 1, // x64 (no ad-hoc re-signing needed in the test)
    packager: { appInfo: { productFilename: 'Switchboard' }, executableName: 'switchboard-app' },
  });

  it('macOS: RunAsNode on (the shim), NODE_OPTIONS and --inspect off, ASAR integrity on', async () => {
    // @electron/fuses edits the framework binary inside the .app.
    const framework = path.join(dir, 'Switchboard.app', 'Contents', 'Frameworks', 'Electron Framework.framework', 'Electron Framework');
    standInBinary(framework);
    await afterPack(context('darwin'));
    const wire = (await getCurrentFuseWire(path.join(dir, 'Switchboard.app', 'Contents', 'MacOS', 'Switchboard'))) as unknown as Record<number, number>;
    const on = FuseState.ENABLE;
    const off = FuseState.DISABLE;
    expect(wire[FuseV1Options.RunAsNode]).toBe(on);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(off);
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(off);
    expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(on);
    expect(wire[FuseV1Options.OnlyLoadAppFromAsar]).toBe(on);
    expect(wire[FuseV1Options.EnableCookieEncryption]).toBe(on);
    expect(wire[FuseV1Options.GrantFileProtocolExtraPrivileges]).toBe(off);
  });

  it('Linux: the same, without ASAR integrity (Electron supports it on macOS and Windows only)', async () => {
    const binary = path.join(dir, 'switchboard-app');
    standInBinary(binary);
    await afterPack(context('linux'));
    const wire = (await getCurrentFuseWire(binary)) as unknown as Record<number, number>;
    expect(wire[FuseV1Options.RunAsNode]).toBe(FuseState.ENABLE);
    expect(wire[FuseV1Options.EnableNodeOptionsEnvironmentVariable]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableNodeCliInspectArguments]).toBe(FuseState.DISABLE);
    expect(wire[FuseV1Options.EnableEmbeddedAsarIntegrityValidation]).toBe(FuseState.DISABLE);
  });
});
