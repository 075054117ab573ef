#pragma once
// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum a stream
// carries over its whole content so corruption is caught before decoding.

#include <array>
#include <cstdint>
#include <span>

namespace ks {

namespace detail {
constexpr std::array<uint32_t, 256> make_crc32_table() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1u) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}
inline constexpr std::array<uint32_t, 256> kCrc32Table = make_crc32_table();
}  // namespace detail

/// Continues a CRC-32 over `bytes`; start with crc = 0.
inline uint32_t crc32(std::span<const uint8_t> bytes, uint32_t crc = 0) {
  crc = ~crc;
  for (uint8_t b : bytes) crc = detail::kCrc32Table[(crc ^ b) & 0xFFu] ^ (crc >> 8);
  return ~crc;
}

}  // namespace ks
