// theme.js — the widgets' look: the light and dark palettes and shared component styles every shadow root starts
// with, and the host page's theme around an element (auto theme). Part of base.js's kit.

/** The dark palette; the light one is BASE_CSS's default. Placed in a second <style> when the theme resolves dark. */
export const DARK_VARS = `--bs-fg: #e6edf3; --bs-bg: #0d1117; --bs-muted: #9198a1; --bs-border: #3d444d; --bs-panel: #161b22;
  --bs-accent: #58a6ff; --bs-c1: #58a6ff; --bs-c2: #ff7b72; --bs-c3: #56d364; --bs-c4: #d2a8ff; --bs-c5: #e3b341;
  --bs-focus: #ffa657; color-scheme: dark;`;

/**
 * Theme and shared component styles, placed first in every widget's shadow root. Host pages override any
 * --bs-* property on the element (`gelu-explorer { --bs-accent: teal }`): outer rules beat :host rules.
 */
export const BASE_CSS = `
:host {
  --bs-fg: #1b1f24; --bs-bg: #ffffff; --bs-muted: #57606a; --bs-border: #d0d7de; --bs-panel: #f6f8fa;
  --bs-accent: #0b5cad; --bs-c1: #0b5cad; --bs-c2: #b3261e; --bs-c3: #1a7f37; --bs-c4: #8250df; --bs-c5: #9a6700;
  --bs-focus: #d1242f; color-scheme: light;
  display: block; position: relative; box-sizing: border-box; max-width: 100%; color: var(--bs-fg); background: var(--bs-bg);
  font-size: var(--bs-font-size, 15px); line-height: 1.45; font-family: var(--bs-font, inherit);
  border: 1px solid var(--bs-border); border-radius: var(--bs-radius, 8px); padding: 0.75rem; container-type: inline-size;
}
*, *::before, *::after { box-sizing: border-box; }
h3 { font-size: 1.05rem; margin: 0 0 0.5rem; }
p { margin: 0.25rem 0 0.5rem; }
.muted { color: var(--bs-muted); }
.row { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; margin: 0.4rem 0; }
label { cursor: pointer; }
input, select, button, textarea { font: inherit; color: inherit; background: var(--bs-bg); border: 1px solid var(--bs-border); border-radius: 6px; }
input[type="text"], input[type="number"], textarea, select { padding: 0.25rem 0.4rem; max-width: 100%; }
input[type="range"] { accent-color: var(--bs-accent); max-width: 100%; }
input[type="checkbox"] { accent-color: var(--bs-accent); }
button { padding: 0.3rem 0.75rem; cursor: pointer; background: var(--bs-panel); }
button:disabled { cursor: not-allowed; opacity: 0.6; }
:focus-visible { outline: 3px solid var(--bs-focus); outline-offset: 2px; }
table { border-collapse: collapse; font-variant-numeric: tabular-nums; max-width: 100%; }
th, td { padding: 0.15rem 0.5rem; text-align: end; border-bottom: 1px solid var(--bs-border); }
th:first-child, td:first-child { text-align: start; }
.scroll { overflow-x: auto; max-width: 100%; position: relative; }
.num { font-variant-numeric: tabular-nums; font-family: ui-monospace, "SF Mono", Menlo, Consolas, monospace; }
.error { color: var(--bs-c2); font-weight: 600; }
.status { min-height: 1.45em; }
svg { display: block; width: 100%; max-width: 760px; height: auto; overflow: visible; }
svg text { fill: var(--bs-fg); font-size: 12px; }
svg .axis path, svg .axis line { stroke: var(--bs-muted); }
svg .axis text { fill: var(--bs-muted); }
svg .grid line { stroke: var(--bs-border); stroke-opacity: 0.7; }
svg .axis-label { fill: var(--bs-fg); font-size: 12px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@media (prefers-reduced-motion: no-preference) { .animate { transition: all 150ms ease-out; } }
`;

// A 1×1 canvas turns any CSS colour syntax (rgb, oklch, color-mix, …) into sRGB bytes.
let colorProbe = null;
function rgba(color) {
  colorProbe ??= document.createElement('canvas').getContext('2d', { willReadFrequently: true });
  colorProbe.clearRect(0, 0, 1, 1);
  colorProbe.fillStyle = '#000';
  colorProbe.fillStyle = color;
  colorProbe.fillRect(0, 0, 1, 1);
  return colorProbe.getImageData(0, 0, 1, 1).data;
}

/** Relative luminance (WCAG) of sRGB bytes. */
function luminance([r, g, b]) {
  const lin = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/**
 * The host page's theme around `element`: the luminance of the nearest ancestor's opaque background (crossing
 * shadow roots); with none, the canvas, which is dark only when the page declares a dark color-scheme and the
 * reader prefers dark.
 */
export function pageTheme(element) {
  for (let n = element.parentElement ?? element.getRootNode().host; n; n = n.parentElement ?? n.getRootNode().host) {
    const bg = getComputedStyle(n).backgroundColor;
    if (!bg || bg === 'transparent' || bg === 'rgba(0, 0, 0, 0)') continue;
    const px = rgba(bg);
    if (px[3] < 128) continue; // mostly see-through: the colour behind it decides
    return luminance(px) < 0.18 ? 'dark' : 'light'; // ≈ where white text starts to contrast better than black
  }
  const meta = document.querySelector('meta[name="color-scheme"]')?.content ?? '';
  const scheme = `${getComputedStyle(document.documentElement).colorScheme} ${meta}`;
  return /dark/.test(scheme) && matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

const UA_DEFAULT_FONT = /^("?Times New Roman"?|Times|serif)$/i;
const SYSTEM_FONT = 'system-ui, -apple-system, "Segoe UI", sans-serif';

/**
 * The theme widget `el` resolves to — its theme attribute (light | dark), else the host page's (pageTheme) — and the
 * rules of its theme <style>: the dark palette when dark, and the system font when the page still uses the browser's
 * default serif.
 */
export function themeRules(el) {
  const asked = el.getAttribute('theme');
  const theme = asked === 'light' || asked === 'dark' ? asked : pageTheme(el);
  const family = getComputedStyle(el.parentElement ?? document.body).fontFamily.trim();
  const font = UA_DEFAULT_FONT.test(family) ? `--bs-font: var(--bs-font-fallback, ${SYSTEM_FONT});` : '';
  const dark = theme === 'dark' ? DARK_VARS : '';
  return { theme, css: dark || font ? `:host { ${dark} ${font} }` : '' };
}
