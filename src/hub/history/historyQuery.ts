/**
 * A person's or model's words as a safe full-text query (docs/design.md §2.7): each word becomes
 * a quoted FTS5 phrase, so no punctuation is ever read as FTS syntax (`-`, `"`, `*`, `:`, `(`,
 * `NEAR`, `OR` are all just text). Pure.
 */

/** At most this many words are searched; the rest are ignored (a query is a few words). */
const MAX_WORDS = 16;

interface WordsQuery {
  /** An FTS5 MATCH expression (every word a prefix phrase, all required), or null when no word has letters or digits. */
  match: string | null;
  /** Words with no letter or digit (`|`, `&&`, `>`): matched as text anywhere in the command line. */
  literals: string[];
}

export function ftsQuery(text: string): WordsQuery {
  const phrases: string[] = [];
  const literals: string[] = [];
  for (const word of text.split(/\s+/).filter(Boolean).slice(0, MAX_WORDS)) {
    // The tokenizer keeps only letters and digits: a word without them would be an empty phrase.
    if (/[\p{L}\p{N}]/u.test(word)) phrases.push(`"${word.replaceAll('"', '""')}"*`);
    else literals.push(word);
  }
  return { match: phrases.length > 0 ? phrases.join(' ') : null, literals };
}

/** `text` anywhere, for LIKE … ESCAPE '\': its own `%`, `_` and `\` are literal. */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
