// tokens.js — the tokenizer the widgets use: the core's (GPT-2 BPE, a model's own BPE or symbols, or bytes) through the runtime client, with a
// note for the UI saying which is in use, and the one place that decides how bytes and token text are displayed:
// UTF-8 is decoded here, and a byte that is not a character on its own becomes a <0xNN> piece (never U+FFFD; the
// notation itself is web/runtime/token-text.js's).
// Not a custom element: a helper shared by <block-explorer> and <gpt-explorer>. The pure functions run in Node.

import { HEX_TOKEN, hexByte } from '../../runtime/token-text.js';
import { speaking } from './values.js';

export { hexByte }; // the <0xNN> notation is the runtime's (token-text.js), shared with tokenTexts()

/** Makes whitespace in a token's text visible (for axis labels and token chips). */
export function visibleToken(text) {
  return String(text).replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥') || '∅';
}

/** Is code point `c` a control character shown as a byte (newline and tab stay text)? */
function isControl(c) {
  return (c <= 0x1f && c !== 0x0a && c !== 0x09) || c === 0x7f;
}

/**
 * Why byte `b` is shown as <0xNN> rather than as a character; `control` for a control character.
 * Used as the tooltip of byte pieces; `m`: the Messages (i18n.js) it speaks (default English).
 */
export function byteTitle(b, control = false, m) {
  m = speaking(m);
  const hex = hexByte(b).slice(1, -1);
  if (control) return m.t('kit.byte.control', { hex });
  if (b >= 0x80 && b <= 0xbf) return m.t('kit.byte.continuation', { hex });
  if (b >= 0xc2 && b <= 0xf4) return m.t('kit.byte.lead', { hex });
  return m.t('kit.byte.invalid', { hex });
}

/**
 * The length of the valid UTF-8 sequence starting at bytes[i], or 0 if it is not one (the WHATWG decoder's
 * rules: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
function sequenceLength(bytes, i) {
  const b = bytes[i];
  if (b < 0x80) return 1;
  let n;
  let lo = 0x80;
  let hi = 0xbf;
  if (b >= 0xc2 && b <= 0xdf) n = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b === 0xe0) lo = 0xa0;
    if (b === 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b === 0xf0) lo = 0x90;
    if (b === 0xf4) hi = 0x8f;
  } else return 0;
  if (i + n > bytes.length) return 0;
  for (let k = 1; k < n; k++) {
    const c = bytes[i + k];
    if (c < (k === 1 ? lo : 0x80) || c > (k === 1 ? hi : 0xbf)) return 0;
  }
  return n;
}

/**
 * Splits bytes into displayable pieces: {text} for runs of valid UTF-8 (multi-byte characters decoded) and
 * {byte, control?} for each byte that is not a character on its own (a stray or incomplete part of a multi-byte
 * character, a byte never valid in UTF-8, or a control character other than newline and tab).
 */
export function utf8Pieces(bytes) {
  const out = [];
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true });
  let start = 0; // start of the pending run of valid text
  const flush = (end) => {
    if (end > start) {
      const text = decoder.decode(bytes.subarray(start, end));
      const last = out.at(-1);
      if (last && last.text != null) last.text += text;
      else out.push({ text });
    }
  };
  for (let i = 0; i < bytes.length;) {
    const n = sequenceLength(bytes, i);
    if (n > 0 && !(n === 1 && isControl(bytes[i]))) {
      i += n;
      continue;
    }
    flush(i);
    out.push(n === 1 ? { byte: bytes[i], control: true } : { byte: bytes[i] });
    start = ++i;
  }
  flush(bytes.length);
  return out;
}

/** The UTF-8 bytes of a string. */
export function utf8Bytes(text) {
  return new TextEncoder().encode(String(text));
}

/** The pieces of one token from its runtime display text (<0xNN>… for bytes that are not text on their own). */
export function tokenPieces(text) {
  if (HEX_TOKEN.test(text)) {
    return text.match(/<0x[0-9A-F]{2}>/g).map((hex) => ({ byte: parseInt(hex.slice(3, 5), 16) }));
  }
  return utf8Pieces(utf8Bytes(text));
}

/** A plain-text label for pieces (axis labels, events): whitespace made visible, bytes as <0xNN>. */
export function piecesLabel(pieces) {
  const s = pieces.map((p) => (p.text != null ? visibleToken(p.text) : hexByte(p.byte))).join('');
  return s || '∅';
}

/** Does the label contain a byte written as <0xNN>? (to style axis labels) */
export function hasByte(pieces) {
  return pieces.some((p) => p.byte != null);
}

/**
 * DOM nodes for pieces: text (whitespace made visible when `visible`) and <span class="byte"> chips with a
 * tooltip saying why the byte is not shown as a character (in `messages`, a Messages; default English). Style them
 * with BYTE_CSS.
 */
export function renderPieces(pieces, { visible = false, messages = null } = {}) {
  const nodes = pieces.map((p) => {
    if (p.text != null) return document.createTextNode(visible ? visibleToken(p.text) : p.text);
    const chip = document.createElement('span');
    chip.className = p.control ? 'byte control' : 'byte';
    chip.title = byteTitle(p.byte, p.control, messages);
    chip.textContent = hexByte(p.byte);
    return chip;
  });
  if (visible && nodes.length === 0) nodes.push(document.createTextNode('∅'));
  return nodes;
}

/** Styles for renderPieces() chips: outlined, monospace, in the muted accent so they read as "not a letter". */
export const BYTE_CSS = `
.byte { display: inline-block; font: 0.78em/1.3 ui-monospace, Menlo, Consolas, monospace; padding: 0 0.2em; margin: 0 1px;
  border: 1px dashed var(--bs-c4); border-radius: 3px; color: var(--bs-c4); background: color-mix(in srgb, var(--bs-c4) 10%, transparent);
  white-space: nowrap; vertical-align: baseline; cursor: help; }
.byte.control { border-style: dotted; }
svg text.byte-label { fill: var(--bs-c4); font-style: italic; }
`;

/**
 * What goes between a prompt and the text generated after it: the tokenizer's separator (symbols: a space; nothing
 * for the byte-level tokenizers, whose tokens are pieces of the text), unless the prompt is empty or already ends in
 * whitespace.
 */
export function separatorAfter(prompt, separator) {
  return separator && prompt && !/\s$/.test(prompt) ? separator : '';
}

/** Wraps the runtime's RemoteTokenizer so callers can await every method alike. */
class RuntimeTokenizer {
  #t;
  #note;
  /**
   * note: {key, params} of the message saying which tokenizer this is (noteIn); m: the Messages `note` is said in.
   * source: where its files came from (null for the core's byte tokenizer and the shipped GPT-2 files); symbols: a
   * symbol vocabulary's symbols in id order (null for the other kinds).
   */
  constructor(remote, note, m, source = null, symbols = null) {
    this.#t = remote;
    this.#note = note;
    this.kind = remote.kind;
    this.vocabSize = remote.vocabSize;
    this.eotId = remote.eotId ?? null;
    this.separator = remote.separator ?? '';
    this.note = this.noteIn(m);
    this.source = source;
    this.symbols = symbols;
    // Its identity: two widgets whose tokenizers have the same key read the same text as the same ids.
    this.key = `${remote.kind}:${remote.vocabSize}${source ? `:${source}` : ''}`;
  }
  /** The note for the UI (which tokenizer this is) in the language of Messages `m` (default English). */
  noteIn(m) {
    return speaking(m).t(this.#note.key, this.#note.params);
  }
  async encode(text) {
    return Int32Array.from(await this.#t.encode(text));
  }
  /** Text of ids (invalid UTF-8 becomes U+FFFD: for events and prompts, not for display — see decodePieces). */
  async decode(ids) {
    return this.#t.decode(Array.from(ids));
  }
  /** Displayable pieces of the text the ids stand for, decoded across token boundaries. */
  async decodePieces(ids) {
    return utf8Pieces(await this.#t.decodeBytes(Array.from(ids)));
  }
  /** Each token's displayable pieces (a token that is not valid UTF-8 on its own is all bytes). */
  async tokenPieces(ids) {
    return (await this.#t.tokenTexts(Array.from(ids))).map(tokenPieces);
  }
  /** Each token as a plain-text label (whitespace visible, bytes as <0xNN>). */
  async tokenTexts(ids) {
    return (await this.tokenPieces(ids)).map(piecesLabel);
  }
  /** Frees the tokenizer in the worker. */
  dispose() {
    return this.#t.dispose();
  }
}

const GPT2_VOCAB = 50257;
/** The note of the core's tokenizer of `kind` ('byte', 'gpt2' or another): {key, params}. */
function coreNote(kind) {
  if (kind === 'byte') return { key: 'kit.tokens.byte', params: {} };
  if (kind === 'gpt2') return { key: 'kit.tokens.gpt2', params: { size: GPT2_VOCAB } };
  return { key: 'kit.tokens.other', params: { kind } };
}

/**
 * Opens the tokenizer of a checkpoint (`source` as for loadModel) on `client`, chosen by the runtime's loadTokenizer
 * (the CLI's rule: the model's own tokenizer files win, else the core's default for its vocabulary), with its note
 * (in Messages `m`, default English; noteIn(m) says it in another language).
 */
export async function openModelTokenizer(client, source, vocabSize, m) {
  const t = await client.loadTokenizer(source, { vocabSize });
  if (t.kind === 'symbols') {
    const symbols = await t.tokenTexts(Array.from({ length: t.vocabSize }, (_, id) => id));
    const shown = symbols.length > 6 ? [...symbols.slice(0, 3), '…', ...symbols.slice(-2)] : symbols;
    const note = { key: 'kit.tokens.symbols', params: { count: symbols.length, shown: shown.join(' '), source: t.source } };
    return new RuntimeTokenizer(t, note, m, t.source, symbols);
  }
  const note = t.source ? { key: 'kit.tokens.ownBpe', params: { source: t.source, size: t.vocabSize } }
    : coreNote(t.kind === 'gpt2' ? 'gpt2' : 'byte');
  return new RuntimeTokenizer(t, note, m, t.source);
}

/**
 * Opens the core's tokenizer of `kind` ('byte' or 'gpt2') on `client`. If GPT-2's files cannot be loaded, falls
 * back to the core's byte tokenizer, with a note for the UI saying so (in Messages `m`, default English).
 */
export async function openTokenizer(client, kind = 'byte', m) {
  const open = async (k, note) => new RuntimeTokenizer(await client.createTokenizer({ kind: k === 'byte' ? 'bytes' : k }), note, m);
  try {
    return await open(kind, coreNote(kind));
  } catch (err) {
    if (kind === 'byte') throw err;
    return open('byte', { key: 'kit.tokens.fallback', params: { kind, message: err.message } });
  }
}
