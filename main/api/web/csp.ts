/**
 * The Content-Security-Policy of the app page, the same in the desktop window and in web mode:
 * scripts and workers only from the app itself (Monaco's workers are bundled files), styles from
 * the app plus inline (Monaco and Cytoscape set element styles), connections only back to the
 * app's own origin (the web-mode WebSocket), no plugins, no framing, no form posts.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');
