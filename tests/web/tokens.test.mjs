// web/widgets/kit/tokens.js in Node: how bytes and token texts become displayable pieces. Valid UTF-8 (1 to 4 bytes)
// decodes to its characters, every byte that is not a character on its own becomes a {byte} piece (never U+FFFD),
// control characters become bytes too, and the runtime's <0xNN> token notation is read back. The expected pieces
// are written out by hand from the UTF-8 definition (RFC 3629); TextDecoder is only the reference for valid text.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { byteTitle, hexByte, piecesLabel, separatorAfter, tokenPieces, utf8Bytes, utf8Pieces } from '../../web/widgets/kit/tokens.js';

const bytes = (...b) => Uint8Array.from(b);

test('valid UTF-8 of every length decodes to one text piece', () => {
  const text = 'aé€😀 z'; // 1-, 2-, 3- and 4-byte characters
  assert.deepEqual(utf8Pieces(utf8Bytes(text)), [{ text }]);
  assert.deepEqual(utf8Pieces(bytes()), []);
  assert.deepEqual(utf8Pieces(utf8Bytes('line\n\ttab')), [{ text: 'line\n\ttab' }], 'newline and tab stay text');
});

test('a character split over byte tokens joins up once all its bytes are there', () => {
  const e = utf8Bytes('é'); // C3 A9
  assert.deepEqual(utf8Pieces(e.subarray(0, 1)), [{ byte: 0xc3 }], 'the lead byte alone is a byte');
  assert.deepEqual(utf8Pieces(e.subarray(1)), [{ byte: 0xa9 }], 'the continuation byte alone is a byte');
  assert.deepEqual(utf8Pieces(bytes(0x63, 0x61, 0x66, 0xc3, 0xa9)), [{ text: 'café' }]);
});

test('stray, truncated, overlong and out-of-range bytes become byte pieces, never U+FFFD', () => {
  const cases = [
    [[0x41, 0xa9, 0x42], [{ text: 'A' }, { byte: 0xa9 }, { text: 'B' }]], // stray continuation
    [[0xe2, 0x82, 0x41], [{ byte: 0xe2 }, { byte: 0x82 }, { text: 'A' }]], // truncated 3-byte sequence
    [[0xc0, 0xaf], [{ byte: 0xc0 }, { byte: 0xaf }]], // overlong '/'
    [[0xe0, 0x80, 0x80], [{ byte: 0xe0 }, { byte: 0x80 }, { byte: 0x80 }]], // overlong 3-byte
    [[0xed, 0xa0, 0x80], [{ byte: 0xed }, { byte: 0xa0 }, { byte: 0x80 }]], // UTF-16 surrogate D800
    [[0xf4, 0x90, 0x80, 0x80], [{ byte: 0xf4 }, { byte: 0x90 }, { byte: 0x80 }, { byte: 0x80 }]], // above U+10FFFF
    [[0xff, 0xfe], [{ byte: 0xff }, { byte: 0xfe }]],
    [[0xf0, 0x9f, 0x98], [{ byte: 0xf0 }, { byte: 0x9f }, { byte: 0x98 }]], // 3 of an emoji's 4 bytes
  ];
  for (const [input, expected] of cases) {
    const pieces = utf8Pieces(bytes(...input));
    assert.deepEqual(pieces, expected, `bytes ${input.map((b) => b.toString(16)).join(' ')}`);
    assert.ok(!pieces.some((p) => p.text?.includes('\uFFFD')));
  }
  // The text pieces agree with the platform's decoder wherever it does not substitute U+FFFD.
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const text = utf8Pieces(all).filter((p) => p.text != null).map((p) => p.text).join('');
  assert.equal(text, new TextDecoder().decode(all.subarray(0, 0x80)).replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ''));
});

test('control characters other than newline and tab are byte pieces', () => {
  assert.deepEqual(utf8Pieces(bytes(0x61, 0x00, 0x1b, 0x7f, 0x0a)),
    [{ text: 'a' }, { byte: 0, control: true }, { byte: 0x1b, control: true }, { byte: 0x7f, control: true }, { text: '\n' }]);
});

test('runtime token texts: <0xNN> tokens are bytes, other tokens are text with visible whitespace in labels', () => {
  assert.deepEqual(tokenPieces('<0xC3>'), [{ byte: 0xc3 }]);
  assert.deepEqual(tokenPieces('<0xE2><0x80>'), [{ byte: 0xe2 }, { byte: 0x80 }]);
  assert.deepEqual(tokenPieces(' the'), [{ text: ' the' }]);
  assert.deepEqual(tokenPieces('<0xC3> and more'), [{ text: '<0xC3> and more' }], 'only a whole-token match is bytes');
  assert.equal(piecesLabel(tokenPieces(' the')), '␣the');
  assert.equal(piecesLabel(tokenPieces('\n')), '↵');
  assert.equal(piecesLabel(tokenPieces('<0xC3>')), '<0xC3>');
  assert.equal(piecesLabel(tokenPieces('\u0001')), '<0x01>');
  assert.equal(piecesLabel([]), '∅');
  assert.equal(hexByte(0x0a), '<0x0A>');
});

test('byte tooltips say why a byte is not a character', () => {
  assert.match(byteTitle(0xc3), /first byte of a multi-byte UTF-8 character/);
  assert.match(byteTitle(0xa9), /continuation byte.*multi-byte UTF-8 character/);
  assert.match(byteTitle(0xff), /never valid in UTF-8/);
  assert.match(byteTitle(0x01, true), /control character/);
});

test('pieces always add up to the original bytes, and valid text is never split into bytes', () => {
  let s = 12345; // a fixed LCG, so the test is repeatable
  const rand = () => (s = (1103515245 * s + 12345) % 2 ** 31) / 2 ** 31;
  const strict = new TextDecoder('utf-8', { fatal: true });
  for (let n = 0; n < 2000; n++) {
    // Mostly high bytes, so lead/continuation combinations (valid and invalid) are common.
    const input = Uint8Array.from({ length: 1 + Math.floor(rand() * 8) }, () => (rand() < 0.2 ? 0x20 + Math.floor(rand() * 0x5f) : 0x80 + Math.floor(rand() * 0x80)));
    const pieces = utf8Pieces(input);
    const back = pieces.flatMap((p) => (p.text != null ? [...utf8Bytes(p.text)] : [p.byte]));
    assert.deepEqual(back, [...input]);
    let valid = true;
    try { strict.decode(input); } catch { valid = false; }
    assert.equal(pieces.some((p) => p.byte != null), !valid, `bytes ${[...input].map((b) => b.toString(16))}`);
  }
});

test('a continuation joins its prompt with the tokenizer\'s separator, unless the prompt already ends in whitespace', () => {
  assert.equal(separatorAfter('9 9 3 SEP', ' '), ' ', 'symbols: "… SEP" then " 3 9 9"');
  assert.equal(separatorAfter('9 9 3 SEP ', ' '), '');
  assert.equal(separatorAfter('9 9 3 SEP\n', ' '), '');
  assert.equal(separatorAfter('', ' '), '', 'nothing before: nothing to separate');
  assert.equal(separatorAfter('The jury said', ''), '', 'byte-level tokens are pieces of the text');
});
