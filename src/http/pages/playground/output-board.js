// The outputs of a run, one card each, in output order: a placeholder while the model starts,
// the growing draft while it streams, then the final SVG with its download link.
import { el, formatBytes } from './dom.js';
import { SvgImage, svgObjectUrl } from './svg-images.js';

const STATE_LABEL = { pending: 'Starting', draft: 'Draft', final: 'Final', failed: 'Failed' };

export class OutputBoard {
  /** `onReuse(operation, markup)` is called by a card's Edit and Animate buttons. */
  constructor(container, { onReuse }) {
    this.container = container;
    this.onReuse = onReuse;
    this.cards = new Map();
    this.pendingDrafts = new Set();
    this.frame = 0;
  }

  clear() {
    for (const card of this.cards.values()) {
      card.image.dispose();
      if (card.downloadUrl) URL.revokeObjectURL(card.downloadUrl);
    }
    this.cards.clear();
    this.pendingDrafts.clear();
    cancelAnimationFrame(this.frame);
    this.container.replaceChildren();
  }

  get size() {
    return this.cards.size;
  }

  /** A `generating` or `reasoning` event: the output exists, and says what it is doing. */
  status(event) {
    const card = this.cardOf(event);
    if (card.state === 'pending' && event.text) card.placeholder.textContent = event.text;
  }

  draft(event) {
    const card = this.cardOf(event);
    if (card.state === 'final') return;
    // Every draft is a whole document: it replaces the last one and is shown as sent.
    card.draft = event.svg;
    this.setState(card, 'draft');
    card.facts.textContent = `${formatBytes(card.draft.length)} so far`;
    // Drafts can arrive faster than frames: render the latest one per frame.
    this.pendingDrafts.add(card);
    if (this.pendingDrafts.size === 1) this.frame = requestAnimationFrame(() => this.renderDrafts());
  }

  renderDrafts() {
    for (const card of this.pendingDrafts) if (card.state === 'draft') card.image.show(card.draft);
    this.pendingDrafts.clear();
  }

  /** A final document: a stream's `content` event or one item of a JSON answer's `data`. */
  final(document) {
    const card = this.cardOf(document);
    this.pendingDrafts.delete(card);
    card.svg = document.svg;
    this.setState(card, 'final');
    card.image.show(document.svg);
    if (card.downloadUrl) URL.revokeObjectURL(card.downloadUrl);
    card.downloadUrl = svgObjectUrl(document.svg);
    card.download.href = card.downloadUrl;
    card.download.hidden = false;
    card.reuse.hidden = false;
    card.facts.textContent = factsOf(document);
  }

  /** Outputs still drafting when the run ended (stopped, failed, or a partial batch). */
  markUnfinished() {
    for (const card of this.cards.values()) if (card.state !== 'final') this.setState(card, 'failed');
  }

  setState(card, state) {
    card.state = state;
    card.root.dataset.state = state;
    card.badge.textContent = STATE_LABEL[state];
  }

  cardOf({ id, index }) {
    const key = id ?? `#${index ?? 0}`;
    let card = this.cards.get(key);
    if (card) return card;
    card = this.createCard(key, index ?? this.cards.size);
    this.cards.set(key, card);
    const after = [...this.container.children].find((node) => Number(node.dataset.index) > card.index);
    this.container.insertBefore(card.root, after ?? null);
    return card;
  }

  createCard(key, index) {
    const img = el('img', { class: 'output-image', alt: `Output ${index + 1}` });
    const placeholder = el('div', { class: 'output-placeholder', text: 'Waiting for the first draft…' });
    const frame = el('div', { class: 'output-frame' }, img, placeholder);
    const badge = el('span', { class: 'state-badge' });
    const facts = el('span', { class: 'output-facts' });
    const filename = `inkwell-${String(key).replace(/[^\w-]/g, '') || index + 1}.svg`;
    const download = el('a', { class: 'button small', download: filename, title: `Save as ${filename}`, hidden: true, text: 'Download' });
    const card = { key, index, state: 'pending', draft: '', svg: null, downloadUrl: null, badge, facts, download, placeholder };
    const reuseAs = (operation) => () => card.svg && this.onReuse(operation, card.svg);
    card.reuse = el(
      'span',
      { class: 'reuse', hidden: true },
      el('button', { type: 'button', class: 'button small ghost', text: 'Edit', onclick: reuseAs('edit') }),
      el('button', { type: 'button', class: 'button small ghost', text: 'Animate', onclick: reuseAs('animate') }),
    );
    card.root = el(
      'article',
      { class: 'output', 'data-index': index, 'data-output-id': key },
      frame,
      el(
        'footer',
        { class: 'output-meta' },
        el('div', { class: 'output-title' }, el('strong', { text: `Output ${index + 1}` }), badge),
        facts,
        el('div', { class: 'output-actions' }, download, card.reuse),
      ),
    );
    card.image = new SvgImage(img, () => {
      placeholder.hidden = true;
      img.classList.add('shown');
    });
    this.setState(card, 'pending');
    return card;
  }
}

/** What a final document says about itself: size, credits or tokens, animation timing, score. */
function factsOf(document) {
  const facts = [formatBytes(new Blob([document.svg]).size)];
  if (typeof document.credits === 'number') facts.push(`${document.credits} credit${document.credits === 1 ? '' : 's'}`);
  if (document.usage) facts.push(`${document.usage.total_tokens} tokens`);
  if (typeof document.loop_period_ms === 'number') facts.push(`loop ${document.loop_period_ms} ms`);
  if (typeof document.opening_animation_ms === 'number') facts.push(`opening ${document.opening_animation_ms} ms`);
  if (typeof document.svg_score === 'number') facts.push(`score ${document.svg_score.toFixed(2)}`);
  return facts.join(' · ');
}
