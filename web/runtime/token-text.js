// token-text.js — how a token is written for display, shared by the runtime (Tokenizer.tokenTexts) and the widgets
// (kit/tokens.js): its text when its bytes are valid UTF-8 on their own, otherwise each byte as <0xNN>, the
// notation of SentencePiece and Hugging Face byte-fallback vocabularies. Never U+FFFD: half a character stays
// visible as the byte it is.

/** A byte in the <0xNN> notation (upper-case hex). */
export function hexByte(b) {
  return `<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`;
}

/** A display text that stands for raw bytes: one or more <0xNN>. */
export const HEX_TOKEN = /^(?:<0x[0-9A-F]{2}>)+$/;

const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A token's display text from its bytes. */
export function tokenText(bytes) {
  try {
    return strict.decode(bytes);
  } catch {
    return Array.from(bytes, hexByte).join('');
  }
}
