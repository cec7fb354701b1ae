// layout.js — what a lesson author chooses a widget shows, and the author's own prose inside it:
//   controls="…"  which control groups appear ("all", the default; "none"; or names, e.g. "tokens, gamma")
//   lock="…"      control groups shown but not editable (by the learner: scripts still set the attributes)
//   sections="…"  which panels render ("all", the default, or part names, e.g. "chart, readout")
//   <p slot="intro">…</p>, <p slot="caption">…</p>   the author's prose under the title and under the chart.
// A widget declares its control groups (`static controlGroups`) and sections (`static sections`, named as its parts)
// next to its attributes; layoutSpecs() turns them into the three attributes' specs, so the guide's tables, the
// generated types and the warnings about unknown names all read the same declaration. Hidden means display: none —
// gone from the layout and the accessibility tree.
import { h } from './dom.js';

export const LAYOUT_ATTRS = ['controls', 'lock', 'sections'];
export const OFF = 'data-bs-off'; // the attribute that hides a group or section (BASE_CSS: display: none)
export const LAYOUT_CSS = `[${OFF}] { display: none !important; }
svg, .chart { direction: ltr; } /* right to left (dir="rtl"): text and controls flip, charts keep x growing rightwards */
slot[name="intro"]::slotted(*), slot[name="caption"]::slotted(*) { margin: 0.25rem 0 0.5rem; }
/* A radio button or checkbox and its text are one box that wraps as a whole: on a narrow screen the label moves to
   the next line with its button, and its own text wraps under itself (a hanging indent), never away from the button. */
:where(label:has(> input:is([type="radio"], [type="checkbox"]):first-child)) { display: inline-block; max-width: 100%;
  padding-inline-start: 1.5em; text-indent: -1.5em; margin-inline-end: 0.6em; }
:where(label:has(> input:is([type="radio"], [type="checkbox"]):first-child)) > :first-child { margin-block: 0;
  margin-inline: 0 0.3em; width: 1.2em; vertical-align: -0.1em; }
:where(label:has(> input:is([type="radio"], [type="checkbox"]):first-child)) > * { text-indent: 0; }
`;

/** "tokens, gamma" / "tokens gamma" -> ['tokens', 'gamma']. */
export function parseList(text) {
  return String(text ?? '').split(/[\s,]+/).map((s) => s.trim().toLowerCase()).filter(Boolean);
}

/** The specs of controls, lock and sections for widget class `cls`, listing its own group and section names. */
export function layoutSpecs(cls) {
  const groups = Object.keys(cls.controlGroups ?? {});
  const sections = Object.keys(cls.sections ?? {});
  return {
    controls: { default: 'all', type: 'string', list: ['all', 'none', ...groups],
      doc: `control groups shown (all | none | any of: ${groups.join(', ')})` },
    lock: { default: '', type: 'string', list: groups, doc: `control groups shown but not editable (any of: ${groups.join(', ')})` },
    sections: { default: 'all', type: 'string', list: ['all', ...sections],
      doc: `panels shown (all | any of: ${sections.join(', ')})` },
  };
}

/**
 * The names an attribute chooses among `known`: a Set, or null for "all". Unknown names are reported once per
 * element and value with console.warn (the widget keeps the known ones).
 */
function chosen(el, name, known, { all = true } = {}) {
  if (!el.hasAttribute(name)) return all ? null : new Set();
  const names = parseList(el.getAttribute(name));
  if (all && (names.length === 0 || names.includes('all'))) return null;
  const unknown = names.filter((n) => n !== 'none' && n !== 'all' && !known.includes(n));
  const said = `${name}=${el.getAttribute(name)}`;
  if (unknown.length && el._layoutWarned !== said) {
    el._layoutWarned = said;
    console.warn(`<${el.localName}> ${name}="${el.getAttribute(name)}": no ${name === 'sections' ? 'section' : 'control group'} ` +
      `named ${unknown.join(', ')} (it has ${known.join(', ')})`);
  }
  return new Set(names.filter((n) => known.includes(n)));
}

/** Inserts the author's slots: intro under the title, caption under the first chart (else above the status). */
export function insertSlots(root) {
  const intro = h('slot', { name: 'intro', part: 'intro' });
  const caption = h('slot', { name: 'caption', part: 'caption' });
  const title = root.querySelector('[part~="title"]');
  if (title) title.after(intro);
  else root.prepend(intro);
  // After the top-level region holding the first chart, so hiding a section never hides the author's caption.
  let anchor = root.querySelector('[part~="chart"]');
  while (anchor && anchor.parentNode !== root) anchor = anchor.parentNode;
  if (anchor) anchor.after(caption);
  else {
    const status = root.querySelector('[part~="status"]');
    if (status) status.before(caption);
    else root.append(caption);
  }
}

/** Whether group `name` of `el` is locked (lock="…"): the learner's edits to its attributes are refused. */
export function isLocked(el, group) {
  return el.hasAttribute('lock') && parseList(el.getAttribute('lock')).includes(group);
}

const EDITABLE = 'input, select, textarea, button';

/**
 * Applies controls, lock and sections to the widget's shadow DOM (after it is built, after each update, and when one
 * of the three attributes changes). Control rows left with nothing to show are hidden too.
 */
export function applyLayout(el) {
  const cls = el.constructor;
  const groups = Object.keys(cls.controlGroups ?? {});
  const sections = Object.keys(cls.sections ?? {});
  const shown = chosen(el, 'controls', groups);
  const locked = chosen(el, 'lock', groups, { all: false });
  const hideAll = el.hasAttribute('controls') && parseList(el.getAttribute('controls')).includes('none');
  for (const { group, nodes } of el.boundControls.groups()) {
    const off = hideAll || (shown !== null && !shown.has(group));
    const lock = locked.has(group);
    for (const node of nodes) {
      node.toggleAttribute(OFF, off);
      const inputs = node.matches(EDITABLE) ? [node] : [...node.querySelectorAll(EDITABLE)];
      for (const input of inputs) {
        if (lock) {
          if (!input.hasAttribute('data-bs-locked')) input.setAttribute('data-bs-locked', input.disabled ? 'was-disabled' : '');
          input.disabled = true;
          input.title ||= el.t('kit.locked');
        } else if (input.hasAttribute('data-bs-locked')) {
          input.disabled = input.getAttribute('data-bs-locked') === 'was-disabled';
          input.removeAttribute('data-bs-locked');
        }
      }
    }
  }
  const root = el.shadowRoot;
  const onlySections = chosen(el, 'sections', sections);
  for (const node of root.querySelectorAll('[part]')) {
    const names = node.getAttribute('part').split(/\s+/).filter((p) => sections.includes(p));
    if (names.length === 0) continue;
    node.toggleAttribute(OFF, onlySections !== null && !names.some((n) => onlySections.has(n)));
  }
  // A row of controls whose every control is hidden takes no room.
  for (const row of root.querySelectorAll('[part~="controls"]')) {
    if (sections.includes('controls') && onlySections !== null && !onlySections.has('controls')) continue;
    const items = [...row.children].filter((c) => c.localName !== 'style');
    row.toggleAttribute(OFF, items.length > 0 && items.every((c) => c.hasAttribute(OFF)));
  }
}
