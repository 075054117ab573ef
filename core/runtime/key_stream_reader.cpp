#include "core/runtime/key_stream_reader.h"

#include <limits>
#include <string>
// For the static (workspace) context; both functions are in libzstd's ABI.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "core/runtime/stream_view.h"

namespace ks {

void KeyStreamReader::init_context() {
  m_workspace.assign(ZSTD_estimateDCtxSize(), 0);
  m_context = ZSTD_initStaticDCtx(m_workspace.data(), m_workspace.size());
}

KeyStreamReader::KeyStreamReader(const StreamView& stream)
    : m_stream(&stream), m_block_count(static_cast<uint32_t>(stream.key_stream_blocks().size())) {
  if (stream.key_stream_compressed()) {
    init_context();
    m_buffer.resize(stream.max_key_stream_block_bytes());
  }
}

KeyStreamReader::KeyStreamReader(const KeyStreamReader& other) { *this = other; }

KeyStreamReader& KeyStreamReader::operator=(const KeyStreamReader& other) {
  if (this == &other) return *this;
  m_stream = other.m_stream;
  m_context = nullptr;
  m_workspace.clear();
  if (other.m_context) init_context();
  m_buffer = other.m_buffer;
  m_loaded_block = other.m_loaded_block;
  m_base_bit = other.m_base_bit;
  m_block = other.m_block;
  m_block_count = other.m_block_count;
  m_block_end_key = other.m_block_end_key;
  m_blocks_decompressed = other.m_blocks_decompressed;
  // The bits of a zstd stream live in this reader's own buffer.
  m_bits = other.m_bits;
  if (m_context) {
    const KeyStreamBlock& held = m_stream->key_stream_blocks()[m_block];
    m_bits = BitReader(std::span<const uint8_t>(m_buffer).first(held.byte_count()), other.m_bits.position());
  }
  return *this;
}

Status KeyStreamReader::start_block(uint32_t block) {
  const StreamView& s = *m_stream;
  if (block >= m_block_count) return Error{"key stream block " + std::to_string(block) + " does not exist"};
  const KeyStreamBlock& b = s.key_stream_blocks()[block];
  m_block = block;
  m_block_end_key = block + 1 == m_block_count ? std::numeric_limits<uint32_t>::max() : b.end_key;
  if (!m_context) {
    // Plain: the whole key stream is one span; a block is a position in it.
    m_base_bit = 0;
    m_bits = BitReader(s.key_stream().first((uint64_t{s.key_stream_bits()} + 7) / 8), b.first_bit);
    return {};
  }
  m_base_bit = b.first_byte() * 8;
  const size_t size = b.byte_count();
  // A block without keys is never read: no need to decompress it.
  if (block != m_loaded_block && b.end_key > b.first_key) {
    m_loaded_block = ~0u;
    const size_t written =
        ZSTD_decompressDCtx(m_context, m_buffer.data(), size, b.compressed.data(), b.compressed.size());
    ++m_blocks_decompressed;
    if (ZSTD_isError(written) || written != size) {
      m_bits = BitReader();
      return Error{"key stream block " + std::to_string(block) + " does not decompress to its " +
                   std::to_string(size) + " bytes" +
                   (ZSTD_isError(written) ? std::string(" (zstd: ") + ZSTD_getErrorName(written) + ")" : "")};
    }
    m_loaded_block = block;
  }
  m_bits = BitReader(std::span<const uint8_t>(m_buffer).first(block == m_loaded_block ? size : 0),
                     b.first_bit - m_base_bit);
  return {};
}

size_t KeyStreamReader::memory_bytes() const {
  return m_buffer.capacity() + m_workspace.capacity();
}

}  // namespace ks
