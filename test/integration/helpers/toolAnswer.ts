/**
 * A `tools/call` result as the tests read it, whichever client or transport brought it: the
 * text, the structured content of a success, and the code and details of an error (from
 * `_meta["dev.switchboard/error"]`, docs/design.md §3.5). It also holds every answer to the
 * contract strict clients rely on: an error result carries no `structuredContent`, and its text
 * leads with its code.
 */
export interface ToolAnswer {
  isError: boolean;
  /** The first text content. */
  text: string;
  /** `structuredContent` of a success; `{}` for an error. */
  sc: Record<string, unknown>;
  /** An error's code and details. */
  error?: { code: string; [detail: string]: unknown };
  /** Every content item as it arrived (the screenshot's image). */
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  /** Whether the result carried `structuredContent` at all. */
  structured: boolean;
}

export const ERROR_META_KEY = 'dev.switchboard/error';

export function toolAnswer(result: unknown): ToolAnswer {
  const r = (result ?? {}) as {
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
    content?: { type: string; text?: string; data?: string; mimeType?: string }[];
    _meta?: Record<string, unknown>;
  };
  const first = r.content?.[0];
  const text = first?.type === 'text' ? (first.text ?? '') : '';
  const content = r.content ?? [];
  const structured = r.structuredContent !== undefined;
  if (r.isError !== true) return { isError: false, text, sc: r.structuredContent ?? {}, content, structured };
  if (r.structuredContent !== undefined) {
    throw new Error(`an error result carries structuredContent (strict clients reject the whole answer): ${JSON.stringify(r)}`);
  }
  const error = r._meta?.[ERROR_META_KEY] as ToolAnswer['error'];
  if (!error || typeof error.code !== 'string') throw new Error(`an error result without _meta["${ERROR_META_KEY}"].code: ${JSON.stringify(r)}`);
  if (!text.startsWith(`${error.code}: `)) throw new Error(`an error's text does not lead with its code ${error.code}: ${text}`);
  return { isError: true, text, sc: {}, error, content, structured };
}
