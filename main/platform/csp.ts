// One Content-Security-Policy for every way the renderer is loaded: the <meta> tag Vite injects,
// web mode's response header and (later) Electron's session header all use this string.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** Header-only directives: browsers ignore these in a <meta> tag. */
export const CSP_HEADER = `${CONTENT_SECURITY_POLICY}; frame-ancestors 'none'`;
