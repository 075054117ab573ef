#pragma once
// KeyStreamReader: the player's cursor into the key stream, block by block.
// A plain stream is one span read in place. A zstd stream (kFlagZstdKeyStream)
// is cut into blocks at the jump frames: the reader holds one decompressed
// block, so a seek decompresses the block its jump frame starts and forward
// play decompresses the next block when the keys of this one run out. The
// buffer and the zstd context are allocated in the constructor: the context
// is a static one in a workspace of ours, which zstd cannot grow, so reading
// and switching blocks allocate nothing.

#include <cstdint>
#include <vector>

#include "core/runtime/bit_reader.h"
#include "core/runtime/result.h"

struct ZSTD_DCtx_s;

namespace ks {

class StreamView;

class KeyStreamReader {
 public:
  KeyStreamReader() = default;
  /// A reader of `stream`'s key stream; call start_block(0) before reading.
  /// The stream must outlive the reader.
  explicit KeyStreamReader(const StreamView& stream);
  KeyStreamReader(const KeyStreamReader& other);
  KeyStreamReader& operator=(const KeyStreamReader& other);
  // Moving keeps the heap buffers in place, so the context and the bit
  // reader stay valid; a moved-from reader may only be destroyed or assigned.
  KeyStreamReader(KeyStreamReader&&) noexcept = default;
  KeyStreamReader& operator=(KeyStreamReader&&) noexcept = default;
  ~KeyStreamReader() = default;

  /// Moves to the first key of block `block` (0 = the start, b = jump frame
  /// b - 1), decompressing it unless it is the block held. Fails on a block
  /// that does not decompress to its size (StreamCheck::kFull rules that
  /// out); the reader then holds no bytes and reads zeros.
  Status start_block(uint32_t block);
  /// Makes the stream key `key_index` (the next to read) readable, moving to
  /// the next block when the held one has no more keys.
  void enter_block_of(uint32_t key_index) {
    // A block that does not decompress reads as zeros (start_block).
    while (past_block(key_index)) static_cast<void>(start_block(m_block + 1));
  }
  /// True when the stream key `key_index` lies in a later block than the one held.
  bool past_block(uint32_t key_index) const { return key_index >= m_block_end_key && m_block + 1 < m_block_count; }

  uint32_t read(uint32_t bits) { return m_bits.read(bits); }
  uint64_t read64(uint32_t bits) { return m_bits.read64(bits); }
  /// The next `bits` bits without moving past them.
  uint32_t peek(uint32_t bits) const { return m_bits.peek(bits); }
  uint64_t peek_window() const { return m_bits.peek_window(); }
  void skip(uint32_t bits) { m_bits.skip(bits); }
  /// Bit position in the plain (uncompressed) key stream.
  uint64_t position() const { return m_base_bit + m_bits.position(); }
  /// True when a read went past the held bytes.
  bool overrun() const { return m_bits.overrun(); }
  uint32_t block() const { return m_block; }

  /// Blocks decompressed so far (0 for a plain stream).
  uint64_t blocks_decompressed() const { return m_blocks_decompressed; }
  /// Bytes the reader owns: its block buffer and zstd context.
  size_t memory_bytes() const;

 private:
  void init_context();

  const StreamView* m_stream = nullptr;
  std::vector<uint8_t> m_workspace;     // the zstd context lives here (zstd streams only)
  ZSTD_DCtx_s* m_context = nullptr;     // in m_workspace
  std::vector<uint8_t> m_buffer;        // one decompressed block
  uint32_t m_loaded_block = ~0u;                           // the block in m_buffer
  BitReader m_bits;
  uint64_t m_base_bit = 0;  // plain-stream bit of m_bits' bit 0
  uint32_t m_block = 0;
  uint32_t m_block_count = 0;
  uint32_t m_block_end_key = 0;  // first stream key past the held block
  uint64_t m_blocks_decompressed = 0;
};

}  // namespace ks
