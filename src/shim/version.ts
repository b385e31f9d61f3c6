/**
 * Our package's version, for the hello line. The shim imports this leaf module rather than
 * src/mcp/ (where the server re-exports the same), so it loads no MCP code.
 */
export { packageVersion as shimVersion } from '../packageInfo.js';
