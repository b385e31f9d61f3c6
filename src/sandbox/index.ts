/**
 * The agent sandbox (docs/design.md §2.10): the entry the hub imports. A leaf layer: node, zod,
 * @anthropic-ai/sandbox-runtime and src/packageInfo.ts; it knows nothing of the core, which
 * applies the launch wrapper the hub hands it.
 */
export { AgentSandbox, SandboxRefusal, notSandboxed, type SandboxInfo, type SessionPlan, type SessionRequest } from './agentSandbox.js';
export { probeSandbox, type SandboxAvailability } from './availability.js';
export { SandboxSettingsSchema, defaultSandboxSettings, defaultWritable, FILESYSTEM_MODES, type SandboxSettings, type NetworkSetting } from './settings.js';
