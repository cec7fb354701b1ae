// Error-message building for blockscope::Error (error.hpp): the one out-of-line place every check's
// message is assembled, so the checks themselves stay small at their call sites.
#include "blockscope/error.hpp"

#include "number_text.hpp"

namespace blockscope::detail {

void MessagePart::append_to(std::string& s) const {
  switch (kind_) {
    case Kind::text: s += text_; return;
    case Kind::signed_int: s += std::to_string(static_cast<long long>(i_)); return;
    case Kind::unsigned_int: s += std::to_string(static_cast<unsigned long long>(u_)); return;
    case Kind::boolean: s += u_ ? "true" : "false"; return;
    case Kind::character: s += static_cast<char>(u_); return;
    case Kind::real: s += real_text(d_); return;
    case Kind::single: s += real_text(short_float(static_cast<float>(d_))); return;
  }
}

std::string concat_parts(std::initializer_list<MessagePart> parts) {
  std::string s;
  for (const MessagePart& p : parts) p.append_to(s);
  return s;
}

void throw_error(std::initializer_list<MessagePart> parts) { throw Error(concat_parts(parts)); }

}  // namespace blockscope::detail
