#include "keystream/runtime/stream_view.h"

#include <string>
#include <zstd.h>

#include "keystream/runtime/stream_parser.h"

namespace ks {

Result<StreamView> StreamView::open(std::span<const uint8_t> bytes, const char* name, StreamCheck check) {
  return StreamParser(bytes, name).parse(check);
}

Status StreamView::decompress_key_stream(std::span<uint8_t> out) const {
  const size_t written = ZSTD_decompress(out.data(), out.size(), m_key_stream_frame.data(), m_key_stream_frame.size());
  if (ZSTD_isError(written) || written != out.size() || out.size() != key_stream_bytes()) {
    return Error{"key stream does not decompress to its " + std::to_string(key_stream_bytes()) + " bytes" +
                 (ZSTD_isError(written) ? std::string(" (zstd: ") + ZSTD_getErrorName(written) + ")" : "")};
  }
  return {};
}

size_t StreamView::jump_frame_bytes() const { return m_jump_index.size() + m_jump_states.size(); }

}  // namespace ks
