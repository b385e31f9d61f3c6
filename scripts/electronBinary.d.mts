/** The Electron binary, or the reason the app cannot start here (scripts/electronBinary.mjs). */
export function electronBinary(env?: NodeJS.ProcessEnv): { binary: string; reason?: undefined } | { binary?: undefined; reason: string };
