#pragma once
// The byte layout of a keystream stream (DESIGN §7), shared by the packer
// that writes it and the StreamView that reads it. Little-endian throughout.
//
//   header            kHeaderSize bytes, fields at the offsets below
//   bone table        u16 parent per bone (kNoParent for a root), padded to 4 bytes
//   track table       per track: u32 key_count, u8 kind, u8 rotation_bits, u16 bone,
//                     then for vec3 tracks f32 range_min[3], f32 range_extent[3]
//   initial keys      bit stream: per track, keys 0..min(2, n-1); key 0 at frame 0
//                     implicitly, keys 1 and 2 with a 16-bit frame; then the value
//   key stream        bit stream of every other key: track id (track_id_bits),
//                     frame (16 bits), value; sorted by need frame, then track
//   jump index        per jump frame: u32 stream key index, u32 stream bit offset,
//                     u32 state bit offset (into the jump states)
//   jump states       bit stream: per jump frame, for each streamed track (more
//                     than 3 keys) in track order: keys read (key_index_bits), then
//                     its window keys max(0, read-4)..read-1, each frame (16 bits),
//                     value and, for rotations, 1 bit "negated by the hemisphere fix"
//   metadata          (version 2) names and thresholds for tools, see below; an
//                     engine may ignore it
//
// Key stream blocks (version 2, flag kFlagZstdKeyStream): the key stream is
// cut at the jump frames into blocks, block b holding the keys from jump
// frame b-1 (or the start) up to jump frame b (or the end). A block is the
// bytes floor(first_bit / 8) .. ceil(end_bit / 8) of the plain key stream (a
// byte shared by two blocks is in both), compressed as one zstd frame that
// declares its size. The section then holds u32 compressed size per block
// (jump frame count + 1 blocks), then the frames back to back. A seek
// decompresses one block; forward play decompresses block after block.
//
// Metadata (version 2): u32 bone name count (0 or the bone count), f32
// translation threshold (m), f32 rotation threshold (degrees), f32 scale
// threshold (0 = unknown), then strings: clip name, source name, bone names;
// a string is a u16 byte count and that many bytes of UTF-8 (no NUL).
//
// Version 1 has no metadata section and no flags but kFlagFixedRange; the
// header field at offset 76 is zero. This build reads versions 1 and 2.
//
// Track t animates bone t / 3, kind t % 3 (translation, rotation, scale).
// Values: vec3 components take 16 bits, or 0 when their range extent is 0;
// rotations take 2 + 3 * rotation_bits (core/runtime/quantization.h).

#include <bit>
#include <cstdint>

namespace ks {

static_assert(std::endian::native == std::endian::little,
              "the stream is little-endian and read with memcpy");

inline constexpr uint32_t kStreamMagic = 0x5254534Bu;  // "KSTR"
inline constexpr uint16_t kStreamVersion = 2;        // written by this build
inline constexpr uint16_t kOldestStreamVersion = 1;  // oldest this build reads
inline constexpr uint16_t kNoParent = 0xFFFFu;
inline constexpr uint32_t kFrameBits = 16;
inline constexpr uint32_t kWindowSize = 4;   // keys per track in the active array
inline constexpr uint32_t kInitialKeysPerTrack = 3;  // keys 0, 1 and 2 are needed at frame 0

/// Stream-wide flags.
enum StreamFlags : uint16_t {
  kFlagFixedRange = 1u << 0,     // vec3 tracks use the fixed -10..10 m range
  kFlagZstdKeyStream = 1u << 1,  // version 2: the key stream is zstd blocks
};

/// Byte offsets of the header fields.
namespace header_offset {
inline constexpr uint32_t kMagic = 0;               // u32
inline constexpr uint32_t kVersion = 4;             // u16
inline constexpr uint32_t kFlags = 6;               // u16
inline constexpr uint32_t kSampleRate = 8;          // f32, frames per second
inline constexpr uint32_t kFrameCount = 12;         // u32
inline constexpr uint32_t kBoneCount = 16;          // u32
inline constexpr uint32_t kTrackCount = 20;         // u32, 3 per bone
inline constexpr uint32_t kJumpIntervalFrames = 24; // u32, 0 = no jump frames
inline constexpr uint32_t kJumpFrameCount = 28;     // u32
inline constexpr uint32_t kTotalKeyCount = 32;      // u32
inline constexpr uint32_t kStreamKeyCount = 36;     // u32, keys in the key stream
inline constexpr uint32_t kBoneTableOffset = 40;    // u32, bytes from the start
inline constexpr uint32_t kTrackTableOffset = 44;
inline constexpr uint32_t kInitialKeysOffset = 48;
inline constexpr uint32_t kKeyStreamOffset = 52;
inline constexpr uint32_t kJumpIndexOffset = 56;
inline constexpr uint32_t kJumpStatesOffset = 60;
inline constexpr uint32_t kTotalSize = 64;          // u32, bytes of the whole stream
inline constexpr uint32_t kKeyStreamBits = 68;      // u32, bits used in the key stream
inline constexpr uint32_t kChecksum = 72;           // u32, CRC-32 of the stream with this field zero
inline constexpr uint32_t kMetadataOffset = 76;     // u32, version 2; zero in version 1
}  // namespace header_offset

inline constexpr uint32_t kHeaderSize = 80;
inline constexpr uint32_t kTrackRecordSize = 8;        // rotation tracks
inline constexpr uint32_t kVec3TrackRecordSize = 32;   // with the range
inline constexpr uint32_t kJumpIndexEntrySize = 12;
inline constexpr uint32_t kMaxStringBytes = 0xFFFFu;  // metadata strings have a u16 length
/// Largest block a key stream block may decompress to; bigger claims are refused
/// before anything is allocated.
inline constexpr uint64_t kMaxKeyStreamBlockBytes = uint64_t{256} << 20;

}  // namespace ks
