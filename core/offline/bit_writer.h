#pragma once
// Writes little-endian bit fields (least significant bit first), the
// counterpart of core/runtime/bit_reader.h.

#include <cassert>
#include <cstdint>
#include <vector>

namespace ks {

class BitWriter {
 public:
  /// Appends the low `bits` (0..64) bits of `value`.
  void write(uint64_t value, uint32_t bits) {
    assert(bits <= 64);
    assert(bits == 64 || (value >> bits) == 0);
    for (uint32_t i = 0; i < bits; ++i) {
      if ((m_size_bits & 7u) == 0) m_bytes.push_back(0);
      if ((value >> i) & 1u) m_bytes.back() |= static_cast<uint8_t>(1u << (m_size_bits & 7u));
      ++m_size_bits;
    }
  }
  uint64_t size_bits() const { return m_size_bits; }
  const std::vector<uint8_t>& bytes() const { return m_bytes; }

 private:
  std::vector<uint8_t> m_bytes;
  uint64_t m_size_bits = 0;
};

}  // namespace ks
