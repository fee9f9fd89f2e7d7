import { createHash } from 'node:crypto';
import type { SafeSvg } from '../../svg/safe-svg.ts';
import type { ViewBox } from '../../contract/common.ts';
import { DRAWING_ELEMENTS, draftFromModelText } from '../../svg/model-output.ts';
import type { StreamedText } from './streamed-text.ts';

/** Drafts after the first: at most one per this many milliseconds. */
export const DRAFT_INTERVAL_MS = 100;

/**
 * Drafts stop once the SVG being written passes this many characters; its `content` event
 * follows. Each draft is the whole document so far (repaired, sanitized, serialized on the event
 * loop), so past this size previews would cost the server and the client more than they show;
 * most drawings models write are well under it (2–20 KB).
 */
export const DRAFT_MAX_CHARS = 32 * 1024;

/**
 * A draft after the first waits until the SVG has grown by this share of what the last attempt
 * read (about one element, for a small document): the sizes drafted grow geometrically, so all
 * the drafts of one answer together cost a small multiple of DRAFT_MAX_CHARS, however it streams.
 */
const DRAFT_GROWTH = 1 / 8;

/** A drawing element's start tag, closed: what the first draft needs at the least. */
const CLOSED_SHAPE_TAG = new RegExp(`<(?:${DRAWING_ELEMENTS.join('|')})[\\s/>][^<]*>`, 'i');

/** `<svg` followed by what may follow an element name (or the end of the text seen so far). */
const SVG_OPENING = /<svg(?=[\s>/]|$)/gi;

/** How the drafts of one upstream answer are made. */
export interface DraftOptions {
  /** The viewBox the model was asked for: the draft's when the SVG has none yet. */
  fallbackViewBox: string;
  /** The request's viewBox, applied to every draft as to the content. */
  viewBox?: ViewBox | null;
  /** Milliseconds between drafts (default DRAFT_INTERVAL_MS; tests set 0 to see every draft due). */
  intervalMs?: number;
}

/**
 * The drafts of one answer, made from its content as it streams. The answer's text is the
 * attempt's, read here, not copied. Each chunk costs work in proportion to its own length: the
 * first `<svg` is found by scanning only the new text, and a draft reads the answer from there
 * (at most DRAFT_MAX_CHARS), so it is made only when it may show something new: an element has
 * closed since the last, DRAFT_INTERVAL_MS have passed, and the SVG has grown by DRAFT_GROWTH.
 */
export class DraftMaker {
  /** The end of the content seen so far: a `<svg` may be split across two chunks. */
  private tail = '';
  /** Characters of the answer seen so far. */
  private seen = 0;
  /** Where the SVG's text starts in the answer: one character before the first `<svg` (a JSON string's quote). */
  private start = 0;
  /** No SVG begun yet; drafting; or past DRAFT_MAX_CHARS, so no more drafts. */
  private state: 'waiting' | 'drafting' | 'done' = 'waiting';
  /** A `>` arrived since the last attempt: an element may have completed. */
  private unseenClose = false;
  private attemptedAt = 0;
  /** The SVG's length at the last attempt, 0 before the first. */
  private attemptedLength = 0;
  /**
   * The last draft's digest, to skip one that shows nothing new. Not the draft itself: kept from
   * one draft to the next, it would outlive the young generation with every stream open.
   */
  private lastDigest?: string;

  /** `answer` is the content the drafts are made of, which its owner adds each piece to before push(). */
  constructor(
    private readonly options: DraftOptions,
    private readonly answer: StreamedText,
  ) {}

  /** Takes the piece of content just added to the answer; returns a new draft when one is due. */
  push(content: string): SafeSvg | undefined {
    const before = this.seen;
    this.seen += content.length;
    if (this.state === 'waiting') {
      // Until an <svg begins, prose costs a search of the new text only.
      const scan = this.tail + content;
      const opening = lastSvgOpening(scan, this.tail.length);
      this.tail = scan.slice(-4);
      if (opening < 0) return undefined;
      // From the first `<svg` on, the text is read whole: which document it holds (a nested
      // `<svg>`, or a model that starts over) is the extractor's to decide, as for the content.
      this.start = Math.max(0, before - (scan.length - content.length) + opening - 1);
      this.state = 'drafting';
    }
    if (this.state !== 'drafting') return undefined;
    const length = this.seen - this.start;
    if (length > DRAFT_MAX_CHARS) {
      this.state = 'done';
      return undefined;
    }
    if (content.includes('>')) this.unseenClose = true;
    return this.attempt(length);
  }

  /** A draft of the SVG so far (`length` characters), if one is due and shows something new. */
  private attempt(length: number): SafeSvg | undefined {
    if (!this.unseenClose) return undefined;
    const now = performance.now();
    if (this.attemptedLength > 0) {
      if (now - this.attemptedAt < (this.options.intervalMs ?? DRAFT_INTERVAL_MS)) return undefined;
      if (length - this.attemptedLength < this.attemptedLength * DRAFT_GROWTH) return undefined;
    }
    this.unseenClose = false;
    // Read afresh each time, not kept: a string kept from one draft to the next would outlive
    // the young generation, while the answer's text is kept anyway.
    const svg = this.answer.text().slice(this.start);
    // Before the first draft, a whole repair waits for a drawing element's start tag to close.
    if (this.lastDigest === undefined && !CLOSED_SHAPE_TAG.test(svg)) return undefined;
    this.attemptedAt = now;
    this.attemptedLength = length;
    const draft = draftFromModelText(svg, this.options.fallbackViewBox, this.options.viewBox);
    if (draft === undefined) return undefined;
    const digest = createHash('sha256').update(draft).digest('base64');
    if (digest === this.lastDigest) return undefined;
    this.lastDigest = digest;
    return draft;
  }
}

/** Where the last `<svg` opening that ends past `seen` characters starts in `text`, or -1. */
function lastSvgOpening(text: string, seen: number): number {
  let last = -1;
  SVG_OPENING.lastIndex = Math.max(0, seen - 3);
  for (let match = SVG_OPENING.exec(text); match; match = SVG_OPENING.exec(text)) {
    if (match.index + 4 > seen) last = match.index;
  }
  return last;
}
