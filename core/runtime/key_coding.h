#pragma once
// How key values and frames are written as bits (DESIGN §7), the reading
// half; core/offline/bit_writer.h writes them.
//
// A key after a track's first is coded as differences from the key before
// it: the frame difference (minus 1 on tracks without discontinuities) and
// each code difference (zigzag-mapped to an unsigned number). Each is a Rice
// code whose parameter k the track table holds per track and component: the
// quotient v >> k in unary (that many 0 bits, then a 1), then the k low
// bits. A quotient of kRiceEscapeZeros or more is written as that many 0
// bits and the value in kRiceEscapeBits raw bits: the escape for rare large
// steps (a long gap between keys, a jump in the motion).
// Absolute values (a track's first key, the keys a jump frame saves) are
// two's complement in the track's absolute width.

#include <bit>
#include <cstdint>

namespace ks {

inline constexpr uint32_t kRiceEscapeZeros = 16;
inline constexpr uint32_t kRiceEscapeBits = 32;
inline constexpr uint32_t kMaxRiceParameter = 26;
/// Widest signed absolute code: codes are within +-kMaxCodeMagnitude (2^24 - 1).
inline constexpr uint32_t kMaxAbsoluteCodeBits = 25;

/// Maps 0, -1, 1, -2, ... to 0, 1, 2, 3, ...
inline uint32_t zigzag(int32_t v) { return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31); }
inline int32_t unzigzag(uint32_t u) { return static_cast<int32_t>(u >> 1) ^ -static_cast<int32_t>(u & 1u); }

/// A two's complement field of `bits` (1..32) bits as a signed number.
inline int32_t sign_extend(uint32_t field, uint32_t bits) {
  const uint32_t shift = 32 - bits;
  return static_cast<int32_t>(field << shift) >> shift;
}

/// Reads one Rice code with parameter `k` (Reader: BitReader or
/// KeyStreamReader). One load: the unary quotient (at most kRiceEscapeZeros
/// bits), its stop bit and k <= kMaxRiceParameter low bits fit in the 57
/// bits peek_window() gives.
template <class Reader>
inline uint32_t read_rice(Reader& reader, uint32_t k) {
  static_assert(kRiceEscapeZeros + 1 + kMaxRiceParameter <= 57);
  const uint64_t window = reader.peek_window();
  const uint32_t zeros = static_cast<uint32_t>(std::countr_zero(static_cast<uint32_t>(window) | (1u << kRiceEscapeZeros)));
  if (zeros >= kRiceEscapeZeros) {
    reader.skip(kRiceEscapeZeros);
    return reader.read(kRiceEscapeBits);
  }
  const uint32_t low = static_cast<uint32_t>((window >> (zeros + 1)) & ((uint64_t{1} << k) - 1u));
  reader.skip(zeros + 1 + k);
  return (zeros << k) | low;
}

/// Bits of the Rice code of `v` with parameter `k`.
inline uint32_t rice_bits(uint32_t v, uint32_t k) {
  const uint32_t quotient = v >> k;
  return quotient >= kRiceEscapeZeros ? kRiceEscapeZeros + kRiceEscapeBits : quotient + 1 + k;
}

}  // namespace ks

namespace ks {

/// How one animated track writes its keys (from the track table).
struct KeyCoding {
  uint8_t absolute_bits = 1;        // width of a signed absolute code, 1..kMaxAbsoluteCodeBits
  uint8_t value_rice[4] = {0, 0, 0, 0};  // Rice parameter of each coded component's difference
  uint8_t frame_rice = 0;           // Rice parameter of the frame difference
  uint8_t frame_delta_min = 1;      // 1 when the track has no discontinuity (no two keys at one frame), else 0
  bool negation_bits = false;       // rotations: every key ends with a bit "negated" (stream_format.h)
  bool operator==(const KeyCoding&) const = default;
};

}  // namespace ks
