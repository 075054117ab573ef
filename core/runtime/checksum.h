#pragma once
// The checksum a stream carries over its whole content (DESIGN §7), checked
// at every load so corruption is caught before decoding. XXH3 (xxHash),
// which hashes a stream of hundreds of kilobytes in microseconds; a
// byte-at-a-time CRC-32 took a third of a millisecond on 200 KB.

#include <cstdint>
#include <span>

namespace ks {

/// The value of the header's checksum field for `stream` (at least the
/// header, kHeaderSize bytes): the low 32 bits of XXH3-64 of the bytes after
/// the header, seeded with XXH3-64 of the header with the checksum field
/// zero. The field's own bytes in `stream` are ignored.
uint32_t stream_checksum(std::span<const uint8_t> stream);

}  // namespace ks
