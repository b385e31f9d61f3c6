/**
 * The search over the scrollback of the terminal in front: what is typed, the match count
 * ("2/7", "no match"), next and previous match, Escape back to the terminal. A tab coming to
 * front starts with an empty search.
 */
import type { IDisposable } from '@xterm/xterm';
import type { TerminalView } from './terminalView.js';

export class ScrollbackSearch {
  /** What the search box holds. */
  query = '';
  /** What the count beside it says. */
  count = '';
  private view: TerminalView | undefined;
  private results: IDisposable | undefined;

  /** `changed`: the box or its count must be drawn again. */
  constructor(private readonly changed: () => void) {}

  /** The terminal in front now (at each drawing). */
  follow(view: TerminalView | undefined): void {
    if (view === this.view) return;
    this.results?.dispose();
    this.view = view;
    this.count = '';
    this.results = view?.onSearchResults((index, count) => {
      this.count = count === 0 ? (this.query ? 'no match' : '') : `${index + 1}/${count}`;
      this.changed();
    });
  }

  /** A tab came to front (`view`, its terminal): the search starts empty. */
  reset(view: TerminalView | undefined): void {
    if (view && this.query) view.clearSearch();
    this.query = '';
    this.count = '';
  }

  /** The person typed into the box: the next match as they type. */
  input(value: string): void {
    this.query = value;
    if (!this.view) return;
    if (value) {
      this.view.findNext(value, true);
    } else {
      this.view.clearSearch();
      this.count = '';
      this.changed();
    }
  }

  /** Enter: next match (Shift: previous); Escape: empty the box, back to the terminal. */
  key(event: KeyboardEvent): void {
    if (!this.view) return;
    if (event.key === 'Enter') {
      event.preventDefault();
      if (event.shiftKey) this.previous();
      else this.next();
    } else if (event.key === 'Escape') {
      if (event.target instanceof HTMLInputElement) event.target.value = '';
      this.query = '';
      this.view.clearSearch();
      this.count = '';
      this.changed();
      this.view.focus();
    }
  }

  next(): void {
    this.view?.findNext(this.query);
  }

  previous(): void {
    this.view?.findPrevious(this.query);
  }
}
