// load-errors.js — what to say when one of Blockscope's own files (a widget's code, the glue, the wasm) cannot be
// loaded. The browser tells scripts only "Failed to fetch"; the usual cause, for a file on another origin than the
// page, is a server that does not send Access-Control-Allow-Origin (module scripts and fetch() are CORS requests),
// and the message says so, naming the file. The embedding guide's #cors section shows the server settings.

/** How every such message starts (the kit recognises a load failure in a widget's error by it, also from a worker). */
export const LOAD_FAILURE = 'Blockscope could not load ';

/** The page's (or worker's) origin, or null outside a browser. */
function hereOrigin() {
  return typeof location === 'undefined' ? null : location.origin;
}

/**
 * An Error for `url` (a URL or string) that could not be loaded, with the browser's `err`: naming the file and, when it
 * is on another origin than this page, the header its server must send.
 */
export function loadFailure(url, err) {
  const href = String(url?.href ?? url);
  const here = hereOrigin();
  let origin = null;
  try {
    origin = new URL(href, here ?? undefined).origin;
  } catch { /* not a URL: no origin to compare */ }
  // Chromium's import() error repeats the URL ("Failed to fetch dynamically imported module: <url>"): say it once.
  const reason = String(err?.message ?? err).replace(`: ${href}`, '');
  const crossOrigin = here !== null && here !== 'null' && origin !== null && origin !== here;
  const advice = crossOrigin
    ? ` It comes from another origin (${origin}) than this page (${here}): that server must send the header ` +
      'Access-Control-Allow-Origin (for the scripts, the .wasm and the worker), or serve Blockscope\'s files from ' +
      'this page\'s own origin. See "Hosting on another origin" in Blockscope\'s embedding guide.'
    : ' Is the file there, and the network up?';
  const error = new Error(`${LOAD_FAILURE}${href} (${reason}).${advice}`, { cause: err });
  error.url = href;
  error.crossOrigin = crossOrigin;
  return error;
}

/** The URL a failed import() names in its message (Chromium, Firefox and Safari all put it there), or null. */
export function urlInImportError(err) {
  return String(err?.message ?? '').match(/\b(https?|file):\/\/\S+?(?=[\s"')]|$)/)?.[0] ?? null;
}
