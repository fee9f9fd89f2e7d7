/**
 * Headers of the browser pages (the playground and the API reference). The pages load nothing
 * but their own origin: no inline script or style, no CDN, no third-party request (Swagger UI
 * needs no inline style either: it sets styles through the DOM, which CSP allows). Results are
 * shown as images (data: or blob: URLs), never inserted as markup, so an SVG's script cannot run.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const PAGE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
});
