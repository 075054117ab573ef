#pragma once
// How key values and frames are written as bits (DESIGN §7), the reading
// half; core/codec/bit_writer.h writes them.
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
/// a RiceWindow over one). One load: the unary quotient (at most kRiceEscapeZeros
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

/// Reads a run of Rice codes (one key's) from a window of the bits ahead,
/// loading the stream only when a code might not fit in what is left: the
/// codes of a key then cost shifts and counts of trailing zeros, not a load
/// and a bounds check each. finish() moves the reader past what was read.
template <class Reader>
class RiceWindow {
 public:
  explicit RiceWindow(Reader& reader) : m_reader(reader), m_bits(reader.peek_window()) {}

  /// The next Rice code with parameter `k` (<= kMaxRiceParameter).
  uint32_t read(uint32_t k) {
    if (m_used + kRiceEscapeZeros + 1 + k > kWindowBits) reload();
    const uint32_t zeros = static_cast<uint32_t>(std::countr_zero(static_cast<uint32_t>(m_bits) | (1u << kRiceEscapeZeros)));
    if (zeros >= kRiceEscapeZeros) {
      // A rare escape: read it from the stream itself.
      m_reader.skip(m_used);
      const uint32_t value = read_rice(m_reader, k);
      m_bits = m_reader.peek_window();
      m_used = 0;
      return value;
    }
    const uint32_t value = (zeros << k) | static_cast<uint32_t>((m_bits >> (zeros + 1)) & ((uint64_t{1} << k) - 1u));
    const uint32_t length = zeros + 1 + k;
    m_bits >>= length;
    m_used += length;
    return value;
  }
  /// The next `bits` (0..32) bits as they are (a fixed-width field).
  uint32_t read_bits(uint32_t bits) {
    if (m_used + bits > kWindowBits) reload();
    const uint32_t value = static_cast<uint32_t>(m_bits & ((uint64_t{1} << bits) - 1u));
    m_bits >>= bits;
    m_used += bits;
    return value;
  }
  /// The next single bit.
  uint32_t read_bit() { return read_bits(1); }
  /// Moves the reader past the codes read.
  void finish() {
    m_reader.skip(m_used);
    m_used = 0;
  }

 private:
  static constexpr uint32_t kWindowBits = 57;  // what peek_window() guarantees
  static_assert(kRiceEscapeZeros + 1 + kMaxRiceParameter <= kWindowBits);
  void reload() {
    m_reader.skip(m_used);
    m_bits = m_reader.peek_window();
    m_used = 0;
  }
  Reader& m_reader;
  uint64_t m_bits;      // the bits from the reader's position + m_used on
  uint32_t m_used = 0;  // bits read from the window
};

/// The next `bits` (0..32) bits of a reader, or of a window of one: code
/// that reads fixed-width fields (absolute codes, jump-frame fields) works
/// with either.
template <class Reader>
inline uint32_t read_field(Reader& reader, uint32_t bits) {
  return reader.read(bits);
}
template <class Reader>
inline uint32_t read_field(RiceWindow<Reader>& window, uint32_t bits) {
  return window.read_bits(bits);
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
