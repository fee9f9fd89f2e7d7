import type { ViewBox } from '../contract/common.ts';
import { applyAttributes } from './attributes.ts';
import { parseSvg, parseSvgFragment } from './parse.ts';
import { checkReferences } from './references.ts';
import { sanitizeNodes, sanitizeTree } from './sanitize.ts';
import { serializeNodes, serializeSvg } from './serialize.ts';
import type { SvgElement } from './tree.ts';

/** Every SVG document that leaves the service passes here: parse, sanitize, apply attributes. */
export function finishSvg(markup: string, viewBox?: ViewBox | null): string {
  return serializeSvg(applyAttributes(sanitizeTree(parseSvg(markup)), viewBox));
}

/** Markup that ends with the root's end tag (a snapshot of a finished document). */
const CLOSED_ROOT = /<\/svg\s*>\s*$/;

/**
 * The drafts of one output, made safe as a whole. A snapshot is the document so far with its
 * root left open; each delta appends element content to it. A client assembles them, so the
 * checks that concern the whole document (reference cycles and fan-out) run on the assembled
 * draft, not on each piece: a delta that would make it unsafe is withheld, and so is every
 * delta after it until the next snapshot, since the client's copy no longer matches ours.
 */
export class DraftPreview {
  private draft: SvgElement | undefined;

  constructor(private readonly viewBox?: ViewBox | null) {}

  /** The sanitized snapshot, root left open, or undefined when it cannot be made safe. */
  snapshot(markup: string): string | undefined {
    this.draft = undefined;
    let root: SvgElement;
    try {
      root = this.closed(markup);
    } catch {
      return undefined;
    }
    this.draft = root;
    const closed = serializeSvg(root);
    return closed.endsWith('/>') && !closed.includes('><') ? `${closed.slice(0, -2)}>` : closed.slice(0, -'</svg>'.length);
  }

  /** The sanitized delta, or undefined when it cannot be made safe (or follows one that could not). */
  delta(markup: string): string | undefined {
    const draft = this.draft;
    if (!draft) return undefined;
    try {
      const nodes = sanitizeNodes(parseSvgFragment(markup));
      draft.children.push(...nodes);
      checkReferences(draft);
      return serializeNodes(nodes);
    } catch {
      this.draft = undefined;
      return undefined;
    }
  }

  /** The snapshot closed and sanitized: as sent when it is complete, else with its root closed. */
  private closed(markup: string): SvgElement {
    // Most snapshots are open: close them before parsing rather than after a failed parse
    // (a parse error costs two Error objects with their stacks).
    let root: SvgElement;
    if (CLOSED_ROOT.test(markup)) root = parseSvg(markup);
    else {
      try {
        root = parseSvg(`${markup}</svg>`);
      } catch {
        root = parseSvg(markup); // a root that closed itself, <svg … />
      }
    }
    return applyAttributes(sanitizeTree(root), this.viewBox);
  }
}
