// electron-builder afterPack hook: flip Electron's fuses on the packaged binary (docs/design.md §6)
// before it is signed. Fuses are compile-time switches baked into the Electron executable:
//  - RunAsNode stays ON: the stdio shim runs on the app's own binary in Node mode
//    (ELECTRON_RUN_AS_NODE=1), as VS Code's `code` command does.
//  - EnableNodeOptionsEnvironmentVariable OFF: NODE_OPTIONS cannot inject code.
//  - EnableNodeCliInspectArguments OFF: no --inspect / --inspect-brk debugger attach.
//  - EnableEmbeddedAsarIntegrityValidation + OnlyLoadAppFromAsar ON (macOS, Windows: where
//    Electron supports ASAR integrity): the app code is the signed app.asar, nothing else.
//  - EnableCookieEncryption ON.
//  - GrantFileProtocolExtraPrivileges OFF: the window loads the UI from its own
//    `switchboard://` scheme (main/appProtocol.ts), so file: pages need no extra powers.
//  - LoadBrowserProcessSpecificV8Snapshot OFF (Electron's default, stated).
//
// @electron/fuses (a dev dependency) is loaded with import() (works whether the installed
// version is CommonJS or ESM-only) inside try/catch. Without it packaging fails, because an
// unfused app lets any local process attach a debugger to the hub that owns the person's
// shells; set SWITCHBOARD_ALLOW_UNFUSED=1 to package a local test build anyway.
// test/unit/main/electronBuilder.test.ts runs this hook on a stand-in binary and reads the
// fuse wire back.
'use strict';

const path = require('node:path');

// electron-builder's Arch enum (builder-util): ia32 0, x64 1, armv7l 2, arm64 3, universal 4.
const ARCH_ARM64 = 3;

/** Path of the Electron executable electron-builder just packed. */
function electronBinary(context) {
  const { appOutDir, electronPlatformName, packager } = context;
  const productFilename = packager.appInfo.productFilename;
  switch (electronPlatformName) {
    case 'darwin':
    case 'mas':
      return path.join(appOutDir, `${productFilename}.app`, 'Contents', 'MacOS', productFilename);
    case 'win32':
      return path.join(appOutDir, `${productFilename}.exe`);
    default:
      return path.join(appOutDir, packager.executableName);
  }
}

async function loadFuses() {
  try {
    const mod = await import('@electron/fuses');
    return typeof mod.flipFuses === 'function' ? mod : mod.default;
  } catch (error) {
    const why = error && error.code ? error.code : String(error);
    const message =
      `[afterPack] @electron/fuses could not be loaded (${why}): run \`npm install\` (it is a dev ` +
      'dependency) before packaging. Without it the app would ship ' +
      'with NODE_OPTIONS and --inspect enabled and no ASAR integrity check.';
    if (process.env.SWITCHBOARD_ALLOW_UNFUSED === '1') {
      console.warn(`${message} Continuing because SWITCHBOARD_ALLOW_UNFUSED=1: do not distribute this build.`);
      return null;
    }
    throw new Error(`${message} Set SWITCHBOARD_ALLOW_UNFUSED=1 to package an unfused local build.`);
  }
}

exports.default = async function afterPack(context) {
  const fuses = await loadFuses();
  if (!fuses) return;
  const { flipFuses, FuseVersion, FuseV1Options } = fuses;

  const platform = context.electronPlatformName;
  const asarIntegrity = platform === 'darwin' || platform === 'mas' || platform === 'win32';
  const binary = electronBinary(context);

  await flipFuses(binary, {
    version: FuseVersion.V1,
    // Flipping fuses invalidates the ad-hoc signature arm64 macOS binaries must carry;
    // electron-builder signs properly afterwards when a signing identity is configured.
    resetAdHocDarwinSignature: platform === 'darwin' && context.arch === ARCH_ARM64,
    [FuseV1Options.RunAsNode]: true,
    [FuseV1Options.EnableNodeOptionsEnvironmentVariable]: false,
    [FuseV1Options.EnableNodeCliInspectArguments]: false,
    [FuseV1Options.EnableEmbeddedAsarIntegrityValidation]: asarIntegrity,
    [FuseV1Options.OnlyLoadAppFromAsar]: asarIntegrity,
    [FuseV1Options.EnableCookieEncryption]: true,
    [FuseV1Options.LoadBrowserProcessSpecificV8Snapshot]: false,
    [FuseV1Options.GrantFileProtocolExtraPrivileges]: false,
  });
  console.log(`[afterPack] fuses set on ${binary}`);
};
