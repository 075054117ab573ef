#include "keystream/runtime/checksum.h"

#include <cassert>
#include <cstring>

// xxHash's functions compiled into this file only: nothing to link.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include "keystream/runtime/stream_format.h"

namespace ks {

uint32_t stream_checksum(std::span<const uint8_t> stream) {
  assert(stream.size() >= kHeaderSize);
  uint8_t header[kHeaderSize];
  std::memcpy(header, stream.data(), kHeaderSize);
  std::memset(header + header_offset::kChecksum, 0, 4);
  const XXH64_hash_t seed = XXH3_64bits(header, kHeaderSize);
  const std::span<const uint8_t> body = stream.subspan(kHeaderSize);
  return static_cast<uint32_t>(XXH3_64bits_withSeed(body.data(), body.size(), seed));
}

}  // namespace ks
