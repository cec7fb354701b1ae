// tokens.js — the tokenizer the widgets use: the runtime's (GPT-2 BPE or bytes) when the client offers
// createTokenizer(), else UTF-8 bytes encoded in the page (vocabulary 256), with a note saying which is in use.
// Not a custom element: a helper shared by <block-explorer> and <gpt-explorer>.

const encoder = new TextEncoder();

/** Display text of one byte token: printable ASCII as itself, space/newline/tab as symbols, others in hex. */
export function byteTokenText(b) {
  if (b === 0x20) return '␣';
  if (b === 0x0a) return '↵';
  if (b === 0x09) return '⇥';
  if (b > 0x20 && b < 0x7f) return String.fromCharCode(b);
  return hexByte(b); // control bytes, and bytes that are not a character on their own
}

/** The runtime tokenizer's notation for a byte that is not displayable text: <0xNN>. */
function hexByte(b) {
  return `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
}

/** Makes whitespace in a token's text visible (for axis labels and token chips). */
export function visibleToken(text) {
  return String(text).replace(/ /g, '␣').replace(/\n/g, '↵').replace(/\t/g, '⇥') || '∅';
}

/** Replaces control characters of decoded text with <0xNN> (keeps newlines and tabs). */
export function printable(text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) => hexByte(c.charCodeAt(0)));
}

/** UTF-8 bytes as tokens, computed in the page: the stand-in until the runtime's tokenizer is available. */
class ByteTokenizer {
  kind = 'byte';
  vocabSize = 256;
  eotId = null;
  native = false;
  constructor(note) {
    this.note = note;
  }
  encode(text) {
    return Int32Array.from(encoder.encode(text));
  }
  decode(ids) {
    return new TextDecoder('utf-8').decode(Uint8Array.from(ids));
  }
  tokenTexts(ids) {
    return Array.from(ids, byteTokenText);
  }
}

/** Wraps the runtime's RemoteTokenizer so callers can await every method alike. */
class RuntimeTokenizer {
  native = true;
  #t;
  constructor(remote, note) {
    this.#t = remote;
    this.kind = remote.kind;
    this.vocabSize = remote.vocabSize;
    this.eotId = remote.eotId ?? null;
    this.note = note;
  }
  async encode(text) {
    return Int32Array.from(await this.#t.encode(text));
  }
  async decode(ids) {
    return this.#t.decode(Array.from(ids));
  }
  async tokenTexts(ids) {
    return (await this.#t.tokenTexts(Array.from(ids))).map((t) => visibleToken(printable(t)));
  }
}

const NOTES = {
  byte: 'Tokens are UTF-8 bytes (vocabulary 256), from the core\'s byte tokenizer.',
  gpt2: 'Tokens come from the GPT-2 BPE tokenizer in the core (vocabulary 50,257).',
};

/**
 * Opens a tokenizer of `kind` ('byte' or 'gpt2') on `client`. Falls back to in-page UTF-8 bytes when the runtime
 * has no tokenizer yet (or it fails), with a note for the UI saying so.
 */
export async function openTokenizer(client, kind = 'byte') {
  if (typeof client?.createTokenizer !== 'function') {
    const why = kind === 'gpt2' ? 'The GPT-2 tokenizer is not available in this runtime yet, so tokens are' : 'Tokens are';
    return new ByteTokenizer(`${why} UTF-8 bytes (vocabulary 256), encoded in the page.`);
  }
  try {
    // The runtime names the byte tokenizer 'bytes'.
    const remote = await client.createTokenizer({ kind: kind === 'byte' ? 'bytes' : kind });
    return new RuntimeTokenizer(remote, NOTES[kind] ?? `Tokens come from the core's ${kind} tokenizer.`);
  } catch (err) {
    return new ByteTokenizer(`The ${kind} tokenizer could not be opened (${err.message}); tokens are UTF-8 bytes (vocabulary 256), encoded in the page.`);
  }
}
