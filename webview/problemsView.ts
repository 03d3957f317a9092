// The problems of the model file as the panel shows them: the banner in the sticky header (the
// file does not read, or weights go unused; wherever the user has scrolled, the dimmed view says
// why) and the warnings above the content, each linked to its place in the file.
import type { ProblemInfo } from '../src/protocol/stages';
import { bannerBlocks, contentWarnings } from './banner';
import { h } from './dom';
import { post } from './viewState';

export class ProblemsView {
  /** The problems of a version that does not read as a model (null while the text reads). */
  problems: { version: number; list: readonly ProblemInfo[] } | null = null;
  /** The warnings of the render shown (when the text reads as a model, `problems` is null). */
  warnings: readonly ProblemInfo[] = [];

  constructor(private readonly banner: HTMLElement, private readonly content: HTMLElement, private readonly rendered: () => boolean) {}

  clear(): void {
    this.problems = null;
    this.warnings = [];
  }

  showBanner(): void {
    const blocks = bannerBlocks(this.problems?.list ?? this.warnings, this.rendered());
    document.body.classList.toggle('has-errors', blocks.some((b) => b.kind === 'error'));
    if (blocks.length === 0) {
      this.banner.hidden = true;
      this.banner.replaceChildren();
      return;
    }
    this.banner.hidden = false;
    this.banner.replaceChildren(...blocks.map((b) => h('div', { class: `banner-block banner-${b.kind}` },
      h('div', { class: 'banner-title' }, b.title),
      h('ul', { class: 'banner-list' }, ...b.items.map((e) => h('li', {}, link(e.line, e.col, `line ${e.line}, column ${e.col}`), ` · ${e.text}`))),
      b.more ? h('div', { class: 'banner-more' }, b.more) : null)));
  }

  renderWarnings(warnings: readonly ProblemInfo[]): void {
    this.content.querySelector('.warnings')?.remove();
    const w = contentWarnings(warnings); // (weights not used are in the banner, above)
    if (!w.length) return;
    this.content.prepend(h('ul', { class: 'warnings' }, ...w.slice(0, 8).map((x) => h('li', {}, link(x.line, x.col, `line ${x.line}`), ` · ${x.message}`))));
  }
}

function link(line: number, col: number, text: string): HTMLElement {
  const a = h('a', { href: '#', class: 'problem-link', title: 'Go to this place in the file' }, text);
  a.addEventListener('click', (ev) => {
    ev.preventDefault();
    post({ type: 'gotoProblem', line, col });
  });
  return a;
}
