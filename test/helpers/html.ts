import { parseHTML } from 'linkedom';

// Console pages read as a browser's DOM (linkedom): assertions name the element they mean (a
// table's cells, a form's fields, the error attached to a field) instead of matching markup,
// so a change of whitespace or attribute order breaks no test and a moved message does.

/** A page (or a fragment) as a document: querySelector, textContent, forms and tables. */
export function parseHtml(body: string): Document {
  // A fragment (htmx) is parsed inside a page of its own, so that querySelector finds it.
  const html = /^\s*<!doctype|^\s*<html/i.test(body) ? body : `<!doctype html><html><body>${body}</body></html>`;
  return parseHTML(html).document as unknown as Document;
}

/** The text of `node` with each line break (<br>) as a newline, as a browser lays it out. */
export function rawText(node: Node | null | undefined): string {
  if (!node) return '';
  if (node.nodeType === 3) return node.textContent ?? '';
  if (node.nodeName === 'BR') return '\n';
  return [...node.childNodes].map(rawText).join('');
}

/** Text as a reader sees it: whitespace runs (line breaks too) as one space, trimmed. */
export function text(node: Node | null | undefined): string {
  return rawText(node).replace(/\s+/g, ' ').trim();
}

/** The one element `selector` names, or an error naming the selector (a missing element fails with its name). */
export function one(root: ParentNode, selector: string): Element {
  const found = root.querySelector(selector);
  if (!found) throw new Error(`nothing matches ${selector}`);
  return found;
}

/** A table's body rows, each as its cells' text (th and td). */
export function tableRows(table: Element): string[][] {
  const rows = table.querySelector('tbody') ? table.querySelectorAll('tbody > tr') : table.querySelectorAll('tr');
  return [...rows].map((row) => [...row.querySelectorAll('th, td')].map((cell) => text(cell)));
}

/** A table's body rows as records keyed by the header cells' text. */
export function tableRecords(table: Element): Array<Record<string, string>> {
  const headers = [...table.querySelectorAll('thead th')].map((th) => text(th));
  return tableRows(table).map((cells) => Object.fromEntries(headers.map((h, i) => [h, cells[i] ?? ''])));
}

/** Every term of a description list (or of all under `root`) with its description's text. */
export function facts(root: ParentNode): Record<string, string> {
  const out: Record<string, string> = {};
  for (const dt of root.querySelectorAll('dt')) {
    const dd = dt.nextElementSibling;
    if (dd?.tagName === 'DD') out[text(dt)] ??= text(dd);
  }
  return out;
}

/**
 * What a browser would post from `form`: text inputs and hidden ones, ticked boxes, text areas
 * and each select's selected option (disabled controls and buttons send nothing).
 */
export function formFields(form: Element): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const control of form.querySelectorAll('input, textarea, select')) {
    const name = control.getAttribute('name');
    if (!name || control.hasAttribute('disabled')) continue;
    if (control.tagName === 'SELECT') {
      const chosen = control.querySelector('option[selected]') ?? control.querySelector('option');
      fields[name] = chosen?.getAttribute('value') ?? text(chosen);
    } else if (control.tagName === 'TEXTAREA') {
      // The first newline after <textarea> is not part of the value (HTML parsing rules).
      fields[name] = (control.textContent ?? '').replace(/^\r?\n/, '');
    } else {
      const type = (control.getAttribute('type') ?? 'text').toLowerCase();
      if ((type === 'checkbox' || type === 'radio') && !control.hasAttribute('checked')) continue;
      if (type === 'submit' || type === 'button' || type === 'file') continue;
      fields[name] = control.getAttribute('value') ?? (type === 'checkbox' || type === 'radio' ? 'on' : '');
    }
  }
  return fields;
}

/** The form that posts to `action` (its path). */
export function formFor(doc: ParentNode, action: string): Element {
  return one(doc, `form[action="${action}"]`);
}

/**
 * The error message shown for a form field (`<key>-error`, as form-error.eta writes it), which
 * must be attached to a control through aria-describedby, as a screen reader finds it;
 * undefined when none is shown.
 */
export function fieldError(doc: ParentNode, key: string): string | undefined {
  const message = doc.querySelector(`[id="${key}-error"]`);
  if (!message) return undefined;
  const controls = [...doc.querySelectorAll('[aria-describedby]')].filter((c) =>
    (c.getAttribute('aria-describedby') ?? '').split(/\s+/).includes(`${key}-error`),
  );
  if (controls.length === 0) throw new Error(`the error of ${key} is shown but attached to no field: ${text(message)}`);
  return text(message);
}

/** The page's alert (an error above the form), if any. */
export function alertText(doc: ParentNode): string | undefined {
  const alert = doc.querySelector('[role="alert"]');
  return alert ? text(alert) : undefined;
}
