import * as path from 'node:path';
import type { Parser } from '@vscode/tree-sitter-wasm';
import { basename } from './pattern.js';
import { withTree, type SyntaxNode } from './shellParser.js';
import { assignmentRuns, assignmentWord } from './commandVariables.js';
import type { Inner, Stdin } from './inner.js';
import { evaluateWord, literalWord, type Word } from './words.js';
import { unwrap, WRAPPER_NAMES } from './wrappers.js';

/** One simple command the line would run (docs/design.md §2.9). */
export interface SeenCommand {
  /** The program, then its arguments. */
  words: Word[];
  /** As written, or rebuilt from the words for a command a wrapper runs. */
  text: string;
  /** The wrappers it was found in, outermost first (`sudo`, `bash -c`). */
  via: string[];
  /** Why the engine cannot see what it runs, when it cannot. */
  hidden?: string;
  /** The folders it may run in; null: not known (a `cd` the engine could not follow). */
  cwds: string[] | null;
  /** The pipeline stage it is in, to match `A | B` rules. */
  pipe?: { id: number; stage: number };
  /** The engine read what it runs (a wrapper, a shell's `-c`, awk's `system()`): its arguments are not a command of their own. */
  read?: true;
}

interface Collected {
  commands: SeenCommand[];
  /** Set when the line, or a line inside it (`bash -c '…'`), does not parse. */
  unparsable?: string;
}

/** Lines inside lines (`bash -c "eval '…'"`): deeper than this is not followed. */
const MAX_SCRIPT_DEPTH = 8;
/** Wrappers inside wrappers (`sudo env nice timeout 5 …`). */
const MAX_WRAPPERS = 16;
/** Syntax nested deeper than this (`$($($(…)))`) is not followed. */
const MAX_NESTING = 200;
/** A `cd` in `a || cd x; b` leaves two folders possible; past this many, the folder is unknown. */
const MAX_CWDS = 8;

interface Context {
  depth: number;
  via: string[];
  pipe?: { id: number; stage: number };
  /** Runs in the line's own shell, in order (not in a subshell, pipeline, loop or function). */
  inOrder: boolean;
  nesting: number;
  /** What the line's commands read when nothing else says (a line awk prints into: a pipe). */
  stdin?: Stdin;
}

class Collector {
  readonly commands: SeenCommand[] = [];
  unparsable: string | undefined;
  private cwds: string[] | null;
  private pipes = 0;

  constructor(
    private readonly parser: Parser,
    cwd: string | undefined,
  ) {
    this.cwds = cwd !== undefined && path.isAbsolute(cwd) ? [path.resolve(cwd)] : null;
  }

  line(text: string, context: Context, owner?: SeenCommand): void {
    withTree(this.parser, text, (root) => {
      if (root.hasError) {
        const problem = `${context.depth === 0 ? 'the line' : `the line given to ${context.via.at(-1) ?? 'a wrapper'}`} does not parse as shell${errorNear(root)}`;
        this.unparsable ??= problem;
        if (owner) owner.hidden ??= problem;
      }
      this.walk(root, context);
    });
  }

  private walk(node: SyntaxNode, context: Context): void {
    if (context.nesting > MAX_NESTING) {
      this.unparsable ??= 'the line nests deeper than the engine follows';
      return;
    }
    const inner: Context = { ...context, nesting: context.nesting + 1 };
    switch (node.type) {
      case 'command':
        this.command(node, inner);
        return;
      case 'variable_assignment':
        this.assignment(node, inner);
        this.children(node, { ...inner, pipe: undefined, inOrder: false });
        return;
      case 'pipeline': {
        const id = ++this.pipes;
        let stage = 0;
        for (const child of node.namedChildren) if (child) this.walk(child, { ...inner, pipe: { id, stage: stage++ }, inOrder: false });
        return;
      }
      case 'redirected_statement':
        if (this.heredocPipeline(node, inner)) return;
        for (const child of node.namedChildren) if (child) this.walk(child, inner);
        return;
      case 'program':
      case 'list':
      case 'negated_command':
        for (const child of node.namedChildren) if (child) this.walk(child, inner);
        return;
      case 'command_substitution':
      case 'process_substitution':
        this.children(node, { ...inner, pipe: undefined, inOrder: false });
        return;
      default:
        this.children(node, { ...inner, inOrder: false });
    }
  }

  /**
   * `cat <<EOF | sh`: the grammar puts the `| sh` inside the heredoc redirect, after its
   * delimiter; the shell runs it as a pipeline whose first stage is the redirected command.
   */
  private heredocPipeline(node: SyntaxNode, context: Context): boolean {
    const redirect = node.namedChildren.find((child) => child?.type === 'heredoc_redirect');
    const piped = redirect?.namedChildren.find((child) => child?.type === 'pipeline' && child.firstChild?.type === '|');
    if (!redirect || !piped) return false;
    const id = ++this.pipes;
    for (const child of node.namedChildren) if (child && child !== redirect) this.walk(child, { ...context, pipe: { id, stage: 0 }, inOrder: false });
    for (const child of redirect.namedChildren) if (child && child !== piped) this.walk(child, { ...context, pipe: undefined, inOrder: false });
    const stages = (pipeline: SyntaxNode): SyntaxNode[] =>
      pipeline.namedChildren.flatMap((child) => (!child ? [] : child.type === 'pipeline' ? stages(child) : [child]));
    stages(piped).forEach((stage, index) => this.walk(stage, { ...context, pipe: { id, stage: index + 1 }, inOrder: false }));
    return true;
  }

  private children(node: SyntaxNode, context: Context): void {
    for (const child of node.namedChildren) if (child) this.walk(child, context);
  }

  /** A `command` node: its words, what it reads on standard input, and what is nested in it. */
  private command(node: SyntaxNode, context: Context): void {
    const nested: Context = { ...context, pipe: undefined, inOrder: false };
    const words: Word[] = [];
    let stdin: Stdin = stdinOf(node.parent);
    for (const child of node.namedChildren) {
      if (!child) continue;
      if (child.type === 'command_name') {
        const name = child.firstNamedChild ?? child;
        this.walk(name, nested);
        // `(( i++ ))` is arithmetic, not a program.
        if (name.type === 'arithmetic_expansion') return;
        words.push(evaluateWord(name));
      } else if (child.type === 'variable_assignment') {
        this.walk(child, nested);
      } else if (child.type === 'herestring_redirect') {
        this.walk(child, nested);
        const word = child.namedChildren.find((part) => part !== null);
        stdin = { text: word ? evaluateWord(word).value : null };
      } else if (child.type.endsWith('_redirect')) {
        this.walk(child, nested);
        if (child.children.some((part) => part?.type === '<')) stdin = { file: true };
      } else {
        this.walk(child, nested);
        words.push(evaluateWord(child));
      }
    }
    if (words.length === 0) return;
    // A later stage of a pipeline reads the one before it; a line awk prints into reads that.
    if (stdin === undefined && context.pipe && context.pipe.stage > 0) stdin = { pipe: true };
    else if (stdin === undefined && context.stdin) stdin = context.stdin;
    this.add({ words, text: node.text, via: context.via, cwds: this.cwds, ...(context.pipe ? { pipe: context.pipe } : {}) }, stdin, context, 0);
  }

  private add(command: SeenCommand, stdin: Stdin, context: Context, wrappers: number): void {
    this.commands.push(command);
    const program = command.words[0] as Word;
    if (program.value === null) {
      command.hidden = `the program ${program.text} is known only when the line runs`;
      return;
    }
    if (program.glob) {
      command.hidden = `the shell expands ${program.text} into file names, so the program is not known`;
      return;
    }
    const name = basename(program.value);
    this.followCd(name, command, context);
    const args = command.words.slice(1);
    const inners = [...unwrap(name, args, stdin), ...setsRunningVariables(name, args)];
    if (inners.length > 0 || WRAPPER_NAMES.has(name)) command.read = true;
    for (const inner of inners) {
      if (inner.kind === 'command') {
        if (wrappers >= MAX_WRAPPERS) {
          command.hidden ??= 'it wraps more wrappers than the engine follows';
          continue;
        }
        const via = [...command.via, inner.how];
        const cwds = inner.cwdChanged ? null : command.cwds;
        this.add(
          { words: inner.words, text: inner.words.map((word) => word.text).join(' '), via, cwds, ...(command.pipe ? { pipe: command.pipe } : {}) },
          stdin,
          context,
          wrappers + 1,
        );
      } else {
        this.inner(inner, command, context);
      }
    }
  }

  /** A line or a hidden part found inside a command (`bash -c '…'`, `system("…")`): its commands join the line's. */
  private inner(inner: Exclude<Inner, { kind: 'command' }>, owner: SeenCommand, context: Context): void {
    if (inner.kind === 'hidden') {
      owner.hidden ??= inner.reason;
    } else if (context.depth >= MAX_SCRIPT_DEPTH) {
      owner.hidden ??= `${inner.how} nests lines deeper than the engine follows`;
    } else {
      // Its commands read what the wrapper reads: they stay in the wrapper's pipeline stage.
      this.line(
        inner.text,
        {
          depth: context.depth + 1,
          via: [...owner.via, inner.how],
          inOrder: false,
          nesting: 0,
          ...(owner.pipe ? { pipe: owner.pipe } : {}),
          ...(inner.stdin ? { stdin: inner.stdin } : {}),
        },
        owner,
      );
    }
  }

  /**
   * `PROMPT_COMMAND='…'`, `PS1='$(…)'`, `BASH_ENV=…` (alone, before a command, or in `export`):
   * what the value runs later is judged now (commandVariables.ts). A part the engine cannot see
   * is shown as a command of its own, hidden, so the line is asked.
   */
  private assignment(node: SyntaxNode, context: Context): void {
    const [nameNode, ...values] = node.namedChildren.filter((child) => child !== null);
    if (!nameNode || nameNode.type !== 'variable_name') return;
    const elements = values[0]?.type === 'array' ? values[0].namedChildren.filter((child) => child !== null) : values;
    const texts = elements.length === 0 ? [''] : elements.map((element) => evaluateWord(element).value);
    const owner: SeenCommand = { words: [literalWord(`${nameNode.text}=`)], text: node.text, via: context.via, cwds: this.cwds, read: true };
    for (const text of texts) {
      for (const inner of assignmentRuns(nameNode.text, text)) {
        if (inner.kind === 'command') continue;
        this.inner(inner, owner, context);
      }
    }
    if (owner.hidden) this.commands.push(owner);
  }

  /**
   * A `cd` in the line's own shell, in order, moves the commands after it: both folders stay
   * possible (`cd x || rm -r y` runs rm where the line started). Anywhere else, or to a folder
   * only running the line would tell, the folder becomes unknown.
   */
  private followCd(name: string, command: SeenCommand, context: Context): void {
    if (name !== 'cd' && name !== 'pushd' && name !== 'popd') return;
    const target = command.words.slice(1).find((word) => word.value === null || !word.value.startsWith('-') || word.value === '-');
    if (
      name === 'popd' ||
      !context.inOrder ||
      context.depth > 0 ||
      this.cwds === null ||
      !target ||
      target.value === null ||
      target.glob ||
      /^[~-]/.test(target.value)
    ) {
      this.cwds = null;
      return;
    }
    const moved = this.cwds.map((cwd) => path.resolve(cwd, target.value as string));
    const next = [...new Set([...this.cwds, ...moved])];
    this.cwds = next.length > MAX_CWDS ? null : next;
  }
}

/**
 * Variables a command sets whose value runs later: `NAME=value` words of `env` and `sudo`,
 * `printf -v NAME format` (the format, when it has no conversions) and `read NAME` (input).
 */
function setsRunningVariables(program: string, args: readonly Word[]): Inner[] {
  if (program === 'env' || program === 'sudo') {
    return args.flatMap((word) => {
      if (word.value === null) return [];
      const assigned = assignmentWord(word.value);
      return assigned ? assignmentRuns(assigned.name, assigned.value) : [];
    });
  }
  if (program === 'printf') {
    const at = args.findIndex((word) => word.value === '-v');
    const name = args[at + 1]?.value;
    if (at < 0 || !name) return [];
    const format = args[at + 2]?.value ?? null;
    return assignmentRuns(name, format !== null && !/[%\\]/.test(format) ? format : null);
  }
  if (program === 'read' || program === 'mapfile' || program === 'readarray') {
    return args.flatMap((word) => (word.value !== null && !word.value.startsWith('-') ? assignmentRuns(word.value, null) : []));
  }
  return [];
}

/** What a command inside a `redirected_statement` reads on standard input (`<<EOF`, `< file`). */
function stdinOf(parent: SyntaxNode | null): Stdin {
  if (parent?.type !== 'redirected_statement') return undefined;
  for (const child of parent.namedChildren) {
    if (child?.type === 'heredoc_redirect') {
      const body = child.namedChildren.find((part) => part?.type === 'heredoc_body');
      if (!body) return { text: '' };
      const dynamic = body.namedChildren.some((part) => part !== null && part.type !== 'heredoc_content');
      return { text: dynamic ? null : body.text };
    }
    if (child?.type === 'file_redirect' && child.children.some((part) => part?.type === '<')) return { file: true };
  }
  return undefined;
}

function errorNear(root: SyntaxNode): string {
  const error = root.descendantsOfType('ERROR')[0];
  const near = error?.text.trim().slice(0, 40);
  return near ? ` (near ${near})` : '';
}

/** Every simple command `line` would run, found as the shell would parse it. */
export function collectCommands(parser: Parser, line: string, cwd: string | undefined): Collected {
  const collector = new Collector(parser, cwd);
  collector.line(line, { depth: 0, via: [], inOrder: true, nesting: 0 });
  return { commands: collector.commands, ...(collector.unparsable ? { unparsable: collector.unparsable } : {}) };
}
