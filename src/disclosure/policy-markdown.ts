import MarkdownIt from 'markdown-it';

// The disclosure policy is Markdown kept by owners and admins, shown to anyone: markdown-it
// with raw HTML off, and only https: and mailto: links. Images are not rendered (no request to
// any other origin), nor are tables or code fences beyond plain preformatted text.

const md = new MarkdownIt('zero', { html: false, linkify: false, typographer: false }).enable([
  'heading',
  'paragraph',
  'list',
  'emphasis',
  'link',
  'newline',
  'blockquote',
  'backticks',
  'text',
  'escape',
]);
md.validateLink = (url: string) => /^(https:|mailto:)/i.test(url.trim());
md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
  tokens[idx]!.attrSet('rel', 'nofollow noopener noreferrer');
  return self.renderToken(tokens, idx, options);
};

/** The policy as HTML: safe to insert into a page unescaped. */
export function renderPolicy(markdown: string): string {
  return md.render(markdown);
}
