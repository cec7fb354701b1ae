// values.js — the one number formatter and the parsers every widget uses for typed numbers and rows of numbers.
// Re-exported by base.js.

/** Formats a core value for display with fixed decimals (−0 shown as 0). */
export function fmt(value, digits = 4) {
  if (!Number.isFinite(value)) return String(value);
  const s = value.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s.replace('-', '−');
}

/**
 * Parses one typed number (a "−" minus sign is accepted); throws an Error naming it (`name`, e.g. "entry 2" or
 * "W₁ row 3, column 2") when it is empty or not a finite number. The one number parser every widget uses.
 */
export function parseNumber(text, name) {
  const raw = String(text).trim();
  if (raw === '') throw new Error(`${name} is empty`);
  const v = Number(raw.replace(/−/g, '-'));
  if (!Number.isFinite(v)) throw new Error(`${name} ("${raw}") is not a number`);
  return v;
}

/** Parses "1, 3, 5, 7" (commas/spaces) into numbers; throws an Error naming the bad entry. */
export function parseNumbers(text) {
  const parts = String(text).trim().split(/[\s,;]+/).filter(Boolean);
  if (parts.length === 0) throw new Error('enter at least one number');
  return parts.map((p, i) => parseNumber(p, `entry ${i + 1}`));
}

/**
 * Parses rows of numbers, "1, 3; 4, 5" (rows split by ";", "|" or newlines), each with parseNumbers; throws an Error
 * naming the row (`${rowName} ${t + 1}: …`). Row lengths and limits are the caller's to check.
 */
export function parseRows(text, rowName) {
  const parts = String(text).split(/[;|\n]/).map((s) => s.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error('enter at least one token vector');
  return parts.map((p, t) => {
    try {
      return parseNumbers(p);
    } catch (err) {
      throw new Error(`${rowName} ${t + 1}: ${err.message}`);
    }
  });
}
