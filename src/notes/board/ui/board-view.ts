import type { BoardNote } from './notes.js';

/** A note the form asks to add. */
export interface NewNote {
  title: string;
  body: string;
}

const element = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id);
  if (!found) throw new Error(`The board's page has no #${id}`);
  return found as T;
};

/**
 * The board's page: the list of notes, the count, the form and a status line. Notes are written
 * with `textContent`, never as HTML: a title is data from the server, not markup.
 */
export class BoardView {
  private readonly list = element<HTMLUListElement>('notes');
  private readonly count = element<HTMLSpanElement>('count');
  private readonly form = element<HTMLFormElement>('add');
  private readonly refreshButton = element<HTMLButtonElement>('refresh');
  private readonly statusLine = element<HTMLParagraphElement>('status');

  render(notes: readonly BoardNote[]): void {
    const items = notes.map((note) => {
      const item = document.createElement('li');
      item.dataset.noteId = note.id;
      item.textContent = note.title;
      return item;
    });
    this.list.replaceChildren(...items);
    this.count.textContent = notes.length === 1 ? '1 note' : `${notes.length} notes`;
  }

  status(text: string, isError = false): void {
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle('error', isError);
  }

  onRefresh(refresh: () => void): void {
    this.refreshButton.addEventListener('click', refresh);
  }

  /** Calls `add` with the form's note on submit; the form is cleared when it resolves to true. */
  onAdd(add: (note: NewNote) => Promise<boolean>): void {
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const data = new FormData(this.form);
      const field = (name: string): string => {
        const value = data.get(name);
        return typeof value === 'string' ? value : '';
      };
      const note = { title: field('title').trim(), body: field('body') };
      if (!note.title) return;
      const submit = this.form.querySelector('button');
      if (submit) submit.disabled = true;
      void add(note).then((added) => {
        if (added) this.form.reset();
        if (submit) submit.disabled = false;
      });
    });
  }
}
