#pragma once
// Reads little-endian bit fields (least significant bit first) from a byte
// span. Safe for untrusted input: a read past the end yields zeros and sets
// overrun(), it never touches memory outside the span.

#include <cstdint>
#include <cstring>
#include <span>

namespace ks {

class BitReader {
 public:
  BitReader() = default;
  explicit BitReader(std::span<const uint8_t> bytes, uint64_t bit_position = 0)
      : m_bytes(bytes), m_size_bits(uint64_t{bytes.size()} * 8), m_position(bit_position) {}

  /// The next `bits` (0..32) bits as an unsigned value.
  uint32_t read(uint32_t bits) {
    if (bits == 0) return 0;
    if (m_position + bits > m_size_bits) {
      m_overrun = true;
      m_position = m_size_bits;
      return 0;
    }
    const uint64_t byte_index = m_position >> 3;
    const uint32_t shift = static_cast<uint32_t>(m_position & 7u);
    uint64_t word = 0;
    if (byte_index + 8 <= m_bytes.size()) {
      std::memcpy(&word, m_bytes.data() + byte_index, 8);  // little-endian host (checked in stream_format.h)
    } else {
      for (uint64_t i = 0; byte_index + i < m_bytes.size(); ++i) {
        word |= uint64_t{m_bytes[byte_index + i]} << (8 * i);
      }
    }
    m_position += bits;
    return static_cast<uint32_t>((word >> shift) & ((uint64_t{1} << bits) - 1u));
  }

  /// The next `bits` (0..64) bits.
  uint64_t read64(uint32_t bits) {
    if (bits <= 32) return read(bits);
    const uint64_t low = read(32);
    return low | (uint64_t{read(bits - 32)} << 32);
  }

  /// The next `bits` (0..32) bits without moving past them; bits past the
  /// end read as 0 and do not count as an overrun.
  uint32_t peek(uint32_t bits) const {
    if (bits == 0 || m_position >= m_size_bits) return 0;
    const uint64_t byte_index = m_position >> 3;
    const uint32_t shift = static_cast<uint32_t>(m_position & 7u);
    uint64_t word = 0;
    if (byte_index + 8 <= m_bytes.size()) {
      std::memcpy(&word, m_bytes.data() + byte_index, 8);
    } else {
      for (uint64_t i = 0; byte_index + i < m_bytes.size(); ++i) word |= uint64_t{m_bytes[byte_index + i]} << (8 * i);
    }
    return static_cast<uint32_t>((word >> shift) & ((uint64_t{1} << bits) - 1u));
  }
  /// The bits from the current position on as one number, least
  /// significant first: at least 57 of them (a whole 64-bit load, less the
  /// position within its first byte), zeros past the end. Lets a reader
  /// decode a variable-length code with one load and then skip() it.
  uint64_t peek_window() const {
    const uint64_t byte_index = m_position >> 3;
    uint64_t word = 0;
    if (byte_index + 8 <= m_bytes.size()) {
      std::memcpy(&word, m_bytes.data() + byte_index, 8);
    } else {
      for (uint64_t i = 0; byte_index + i < m_bytes.size(); ++i) word |= uint64_t{m_bytes[byte_index + i]} << (8 * i);
    }
    return word >> (m_position & 7u);
  }
  /// Moves past `bits` bits (an overrun when that passes the end).
  void skip(uint64_t bits) {
    if (m_position + bits > m_size_bits) {
      m_overrun = true;
      m_position = m_size_bits;
      return;
    }
    m_position += bits;
  }

  uint64_t position() const { return m_position; }
  void seek(uint64_t bit_position) { m_position = bit_position; }
  uint64_t size_bits() const { return m_size_bits; }
  bool overrun() const { return m_overrun; }

 private:
  std::span<const uint8_t> m_bytes;
  uint64_t m_size_bits = 0;
  uint64_t m_position = 0;
  bool m_overrun = false;
};

/// Bits needed to write any value 0..max_value (0 when max_value is 0).
constexpr uint32_t bits_for(uint64_t max_value) {
  uint32_t bits = 0;
  while (max_value > 0) {
    ++bits;
    max_value >>= 1;
  }
  return bits;
}

}  // namespace ks
