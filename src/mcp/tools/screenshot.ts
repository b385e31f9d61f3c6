/**
 * `screenshot` (docs/design.md §3.2): a PNG of a session's screen as the person sees it, as MCP
 * `image` content plus one line of text. No `outputSchema` and no `structuredContent`: hosts drop
 * an image that comes with structured content (§3.1). The hub draws it (src/hub/screenshot/).
 */
import type { CallToolResult, McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { lenientInputSchema, parseInput, SESSION_ALIASES, type InputSpec } from '../schemas.js';
import type { Screenshot, ToolDeps } from '../toolHost.js';
import { errorResult, withWarnings } from '../toolResult.js';
import { LOOKS_ONLY } from '../annotations.js';

const schema = z.object({
  session: z.string().min(1).describe('Session id or name.'),
  path: z.string().min(1).optional().describe('Absolute path: also write the PNG there.'),
  theme: z.enum(['dark', 'light']).optional().describe('Default dark.'),
});

const spec: InputSpec<typeof schema.shape> = {
  schema,
  aliases: { ...SESSION_ALIASES, file: 'path', save_to: 'path', output: 'path', filename: 'path' },
  normalize: { theme: (value) => (typeof value === 'string' ? value.trim().toLowerCase() : value) },
};

const DESCRIPTION = "PNG of a session's screen as the person sees it: colours, bold, cursor. For text, use read view screen.";

export function registerScreenshot(server: McpServer, deps: ToolDeps): RegisteredTool {
  const { host } = deps;
  return server.registerTool(
    'screenshot',
    {
      title: 'Screenshot session',
      description: DESCRIPTION,
      inputSchema: lenientInputSchema(schema),
      annotations: LOOKS_ONLY,
    },
    async (raw): Promise<CallToolResult> => {
      const input = parseInput(spec, raw);
      if (!input.ok) return errorResult(input.error, host.logger, 'screenshot', input.warnings);
      const { session, ...request } = input.value;
      try {
        const taken = await host.screenshot(session, request);
        const shot = { ...taken, session: deps.showId(taken.session) };
        return withWarnings(
          {
            content: [
              { type: 'text', text: screenshotLine(shot) },
              { type: 'image', data: shot.png.toString('base64'), mimeType: 'image/png' },
            ],
          },
          input.warnings,
        );
      } catch (error) {
        return errorResult(error, host.logger, 'screenshot', input.warnings);
      }
    },
  );
}

/** The one line beside the image: which session, its size, the cursor, where the file went. */
function screenshotLine(shot: Screenshot): string {
  const { screen } = shot;
  const cursor = screen.cursor.visible
    ? `cursor row ${screen.cursor.row} col ${screen.cursor.col}`
    : `cursor hidden (row ${screen.cursor.row} col ${screen.cursor.col})`;
  const written = shot.path ? `; written to ${shot.path}` : '';
  return `Screenshot of session ${shot.session}: ${screen.cols}×${screen.height} cells, ${shot.width}×${shot.height} px PNG, ${cursor}${written}.`;
}
