// GPT-2's tokenizer file rules (internal header), shared by the loader (gpt2_loader.cpp), the encoder
// (tokenizer.cpp) and the BPE trainer (bpe_trainer.cpp): how vocab.json / merges.txt write a token's bytes,
// which ids the 256 single bytes get, and the end-of-text token. Defined in gpt2_loader.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace blockscope::gpt2 {

inline constexpr std::string_view kEndOfText = "<|endoftext|>";

// OpenAI encoder.py bytes_to_unicode(): printable Latin-1 bytes stand for themselves; the other 68 bytes
// (controls, space, 0x7F-0xA0, 0xAD) become U+0100.. in byte order, so every token is printable text.
std::array<char32_t, 256> bytes_to_unicode();

// The 256 byte values in the order GPT-2's encoder.json numbers them (ids 0..255): the order of their
// bytes_to_unicode characters, i.e. the printable bytes ('!' = 0 ... 0xFF = 187), then the other 68 (0x00 = 188,
// ' ' = 220, ...), as encoder.py's `bs` list.
std::array<uint8_t, 256> bytes_in_id_order();

// A token as written in the files (UTF-8 of bytes_to_unicode characters) -> its raw bytes; nullopt if it has
// a character that is not one of the 256.
std::optional<std::string> token_bytes_of(std::string_view written);

// Raw bytes -> the token as written in the files (UTF-8 of bytes_to_unicode characters).
std::string written_form(std::string_view bytes);

// Calls encode_text on each stretch of `text` between occurrences of "<|endoftext|>", calling on_eot for each
// occurrence; without an eot (`split` false) the whole text is one stretch.
template <typename EncodeText, typename OnEot>
void split_on_eot(std::string_view text, bool split, EncodeText encode_text, OnEot on_eot) {
  while (split) {
    const size_t at = text.find(kEndOfText);
    if (at == std::string_view::npos) break;
    encode_text(text.substr(0, at));
    on_eot();
    text.remove_prefix(at + kEndOfText.size());
  }
  encode_text(text);
}

}  // namespace blockscope::gpt2
