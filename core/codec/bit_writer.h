#pragma once
// Writes little-endian bit fields (least significant bit first), the
// counterpart of core/runtime/bit_reader.h, and the Rice codes of
// core/runtime/key_coding.h.

#include <bit>
#include <cassert>
#include <cstdint>
#include <vector>

#include "keystream/runtime/key_coding.h"

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
  /// Appends the Rice code of `value` with parameter `k` (key_coding.h).
  void write_rice(uint32_t value, uint32_t k) {
    const uint32_t quotient = value >> k;
    if (quotient >= kRiceEscapeZeros) {
      write(0, kRiceEscapeZeros);
      write(value, kRiceEscapeBits);
      return;
    }
    write(uint64_t{1} << quotient, quotient + 1);
    write(value & ((uint64_t{1} << k) - 1u), k);
  }
  /// Appends `value` as a two's complement field of `bits` (1..32) bits.
  void write_signed(int32_t value, uint32_t bits) {
    write(static_cast<uint32_t>(value) & static_cast<uint32_t>((uint64_t{1} << bits) - 1u), bits);
  }
  void write_f32(float value) { write(std::bit_cast<uint32_t>(value), 32); }

  uint64_t size_bits() const { return m_size_bits; }
  const std::vector<uint8_t>& bytes() const { return m_bytes; }

 private:
  std::vector<uint8_t> m_bytes;
  uint64_t m_size_bits = 0;
};

}  // namespace ks
