// tokens.js — the tokenizer the widgets use: the core's (GPT-2 BPE or bytes) through the runtime client, with a
// note for the UI saying which is in use, and helpers that make token text displayable.
// Not a custom element: a helper shared by <block-explorer> and <gpt-explorer>.

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

/** Wraps the runtime's RemoteTokenizer so callers can await every method alike. */
class RuntimeTokenizer {
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
 * Opens the core's tokenizer of `kind` ('byte' or 'gpt2') on `client`. If GPT-2's files cannot be loaded, falls
 * back to the core's byte tokenizer, with a note for the UI saying so.
 */
export async function openTokenizer(client, kind = 'byte') {
  const open = async (k, note) => new RuntimeTokenizer(await client.createTokenizer({ kind: k === 'byte' ? 'bytes' : k }), note);
  try {
    return await open(kind, NOTES[kind] ?? `Tokens come from the core's ${kind} tokenizer.`);
  } catch (err) {
    if (kind === 'byte') throw err;
    return open('byte', `The ${kind} tokenizer could not be opened (${err.message}); tokens are UTF-8 bytes (vocabulary 256) from the core.`);
  }
}
