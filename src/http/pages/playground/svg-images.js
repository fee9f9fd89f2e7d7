// SVG results are shown as images, never inserted into the page: an <img> renders SVG without
// running its scripts or loading anything it links to.

/** A blob: URL of SVG markup; revoke it when it is no longer shown. */
export function svgObjectUrl(markup) {
  return URL.createObjectURL(new Blob([markup], { type: 'image/svg+xml' }));
}

/**
 * An <img> showing SVG markup that changes over time. A new picture replaces the shown one only
 * once it has loaded, and a late-loading draft never replaces a newer picture.
 */
export class SvgImage {
  constructor(img, onShown = () => {}) {
    this.img = img;
    this.onShown = onShown;
    this.url = null;
    this.sequence = 0;
  }

  show(markup) {
    const sequence = ++this.sequence;
    const url = svgObjectUrl(markup);
    const probe = new Image();
    probe.onload = () => {
      if (sequence !== this.sequence) return URL.revokeObjectURL(url);
      if (this.url) URL.revokeObjectURL(this.url);
      this.url = url;
      this.img.src = url;
      this.onShown();
    };
    probe.onerror = () => URL.revokeObjectURL(url);
    probe.src = url;
  }

  dispose() {
    this.sequence += 1;
    if (this.url) URL.revokeObjectURL(this.url);
    this.url = null;
  }
}
