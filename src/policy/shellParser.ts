import { createRequire } from 'node:module';
import treeSitter from '@vscode/tree-sitter-wasm';
import type { Node, Parser, Tree } from '@vscode/tree-sitter-wasm';

export type SyntaxNode = Node;

// The package is CommonJS (a UMD bundle): Node gives ESM only its default export.
const { Parser: ParserClass, Language } = treeSitter;

let loading: Promise<Parser> | undefined;

/**
 * The bash grammar's parser, loaded on first use: the WebAssembly runtime and grammar cost
 * a moment to compile, which a hub that never checks a command should not pay. One parser
 * serves every call; `parse` is synchronous, so calls cannot interleave on it.
 */
export function bashParser(): Promise<Parser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined; // a later call tries again
    throw error;
  });
  return loading;
}

async function load(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  await ParserClass.init();
  const bash = await Language.load(require.resolve('@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm'));
  const parser = new ParserClass();
  parser.setLanguage(bash);
  return parser;
}

/** Parses `line` and hands the tree to `use`; the tree's WebAssembly memory is freed after. */
export function withTree<T>(parser: Parser, line: string, use: (root: Node) => T): T {
  const tree: Tree | null = parser.parse(line);
  if (!tree) throw new Error('the shell parser returned no tree');
  try {
    return use(tree.rootNode);
  } finally {
    tree.delete();
  }
}
