#pragma once
// The byte layout of a keystream stream (DESIGN §7), shared by the packer
// that writes it and the StreamView that reads it. Little-endian throughout;
// bit streams are read least significant bit first (bit_reader.h).
//
//   header        kHeaderSize bytes, fields at the offsets below
//   tables        bit stream: every bone's parent (bits_for(bone count) bits:
//                 0 for a root, else parent + 1), then a record per track
//                 (track t < 3 x bone count animates bone t / 3, kind t % 3:
//                 translation, rotation, scale), then 1 bit "scalar tracks
//                 follow" and when set their count - 1 (16 bits) and a
//                 record per scalar track (track t is scalar track
//                 t - 3 x bone count), then zero bits to a whole byte:
//                   scalar tracks only: components - 1, 2 bits
//                   coding: 2 bits (TrackCoding)
//                   identity: nothing more
//                   rest (bone tracks, version 11): nothing more; the
//                     value is the bone's rest value (see "Rest tracks")
//                   constant: the value as f32 x, y, z (and w for a rotation;
//                     a scalar track: its components)
//                   animated:
//                     key count: kKeyCountBits (2 .. 2 * frame count)
//                     interpolation: kInterpolationBits (Interpolation:
//                       Hermite, linear or step; not in version 9)
//                     rotation: 1 bit RotationCoding; relative: the
//                       reference, a kReferenceCodeBits smallest-three code;
//                       then 1 bit "negation bits": set when some key
//                       decodes negated (see below)
//                     vec3: 3 bits, which components are coded; each one
//                       not coded: its value as f32; a scalar track: as
//                       many bits as it has components, the same way
//                     step: f32, > 0
//                     absolute width: 5 bits (1..kMaxAbsoluteCodeBits)
//                     per coded component: its Rice parameter, 5 bits
//                     frame Rice parameter: 5 bits; frame delta minimum: 1 bit
//   key widths    bit stream, per streamed track (more than 3 keys) in track
//                 order, per segment of its stream keys (stream_key_layout.h):
//                 the frame difference's width, then each coded component's,
//                 kSegmentWidthBits each; then zero bits to a whole byte
//   initial keys  bit stream, per animated track in track order: key 0 (its
//                 codes, absolute), then keys 1 and 2 where the track has
//                 them, each as Rice-coded differences (key_coding.h). A key of a
//                 rotation track with negation bits ends with 1 bit, here,
//                 in the key stream and in the jump states: the key is the
//                 negation of its dequantized value. The packer sets it where
//                 the fitter's hemisphere chain (align_hemisphere, key by
//                 key) negated the key, so the decoder never runs the chain:
//                 a seek can skip a key without dequantizing it. A track
//                 whose chain negates nothing (nearly all) carries no bits.
//   key stream    bit stream of every other key (keys 3, 4, ... of each
//                 streamed track) as differences in the fixed widths of its
//                 segment (stream_key_layout.h), a track's keys end to end
//                 (its run), the runs in track order. A player keeps a
//                 cursor per track: the keys due at a frame are read eight
//                 tracks at a time, and a seek skips a track's keys by
//                 their known lengths, neither following the others' keys.
//                 Where each run starts follows from the key widths.
//   jump index    per jump frame: u32 stream keys read by then (over every
//                 track)
//   jump states   bit stream (empty without jump frames): per streamed
//                 track (more than 3 keys) in track order, the width of its
//                 saved frame differences (kJumpFrameDifferenceWidthBits:
//                 0..kFrameBits); then per jump frame a state, every state
//                 the same length with the same layout: for each streamed
//                 track in track order, keys read (key_index_bits); then,
//                 for a track of kRestoreFromRunKeys keys or more
//                 (saves_oldest_key), its window's oldest key (read - 4):
//                 the jump frame minus its frame, in the track's width, and
//                 its absolute codes; all zero bits while the track has read
//                 fewer than kRestoreFromRunKeys keys. A player therefore
//                 finds every field of a state at a place known before it
//                 reads one, and restores eight tracks at a time. The
//                 window's other three keys are re-read from the run, from
//                 the key after the oldest: where that starts follows from
//                 the key widths (its segment's start, plus its place in the
//                 segment times the segment's key length), so a state saves
//                 no offset. With fewer keys read, the window is keys 0..2
//                 (which a player keeps) and the run's first keys.
//   metadata      names and the tolerance the fit promised, for tools; an
//                 engine may ignore it (see below)
//
// zstd (flag kFlagZstdKeyStream): the key stream is one zstd frame that
// declares its size, after a u32 of its compressed size; a player
// decompresses it once, when it is made.
//
// Metadata: u32 bone name count (0 or the bone count), u8 error mode
// (0 object space, 1 local), f32 tolerance (m), f32 shell distance (m),
// f32 translation threshold (m), f32 rotation threshold (degrees), f32
// scale threshold, u32 bone override count; then strings (a u16 byte count
// and that many bytes of UTF-8, no NUL): clip name, source name, bone
// names; then per override: u16 bone, f32 tolerance (m), f32 shell
// distance (m, 0 = inherited). Then u8 extensions (kMetadataScalars,
// kMetadataAdditive, kMetadataRestValues, kMetadataNameHashes; a bone-only
// clip pays this one byte) and what they say
// follows, in that order: the scalar tracks: u32 count (0 or the scalar
// track count), f32 default precision; per track: its name, f32 precision,
// u8 target (0 a user curve, 1 a morph weight), the node's name and u32
// target index; the additive base: u8 AdditiveBase, a string naming it (the
// base clip's file and animation; empty for the others); the rest values;
// the name hashes: per bone, u32 name_hash (stream_metadata.h) of its name.
//
// Names (`compress --names`): full stores the clip's, the source's and the
// bones' names; hash stores none of them (a name count of 0, empty clip and
// source names) but a 32-bit hash per bone, for an engine that binds bones
// by hash; none stores no names at all (an engine that binds by index).
// Scalar tracks keep their names either way: a user curve is bound by it.
//
// Rest tracks (version 11): a bone track that holds its rest value (the
// skeleton's bind pose, which an engine has with the skeleton: ACL's
// default tracks, gltfpack's tracks dropped as equal to the node) stores
// nothing; `compress --rest-tracks skip` writes them. The metadata keeps
// their values (kMetadataRestValues: per rest track in track order, its
// components as f32) so that tools, and a player nobody gives a rest pose,
// decode the stream alone; an engine binds its own (Player::set_rest_pose).
//
// Additive clips (kFlagAdditive): the stream holds the difference to a base
// pose per frame (rotation base^-1 q, translation difference, scale ratio),
// which apply_additive (additive.h) composes onto any pose.
//
// Version 10 had no rest tracks. It is still read.
// Version 9 had no interpolation per track: every track was Hermite. It is
// still read.
// Version 8 had no scalar tracks, no additive flag and no metadata
// extensions.
// Versions 1 to 8 are refused with a message to recompress: their sources
// are what a tool keeps, and one decoder keeps the player small. (Versions 1
// and 2 had fixed 16-bit vec3 and 10..20-bit smallest-three keys and a track
// id per key; version 3 had a CRC-32 and ran the hemisphere chain in the
// decoder, with a sign bit per rotation key in the jump states; version 4
// Rice-coded the stream keys too, each a serial chain of variable-length
// codes, and had no key widths section; version 5 sorted the stream keys of
// all tracks by need frame, cut zstd blocks at the jump frames, and saved
// whole Rice-coded windows in the jump states; version 6 saved the oldest
// key's frame in 16 bits and the offset of the key after it in the track's
// run, a third of each state; version 7 saved the oldest key only once a
// track had read kRestoreFromRunKeys keys, so a state's fields were found by
// reading every field before them, and indexed each state's bit offset.)

#include <bit>
#include <cstdint>

namespace ks {

static_assert(std::endian::native == std::endian::little,
              "the stream is little-endian and read with memcpy");

inline constexpr uint32_t kStreamMagic = 0x5254534Bu;  // "KSTR"
inline constexpr uint16_t kStreamVersion = 11;       // written and read by this build
inline constexpr uint16_t kOldestReadStreamVersion = 9;  // read too: its tracks are all Hermite
inline constexpr uint16_t kInterpolationStreamVersion = 10;  // the first with an interpolation per track
inline constexpr uint16_t kRestTrackStreamVersion = 11;  // the first with rest tracks
inline constexpr uint32_t kInterpolationBits = 2;
inline constexpr uint16_t kNoParent = 0xFFFFu;
inline constexpr uint32_t kFrameBits = 16;
inline constexpr uint32_t kKeyCountBits = 17;        // up to 2 * 65535 keys
inline constexpr uint32_t kRiceParameterBits = 5;
inline constexpr uint32_t kAbsoluteWidthBits = 5;
inline constexpr uint32_t kWindowSize = 4;   // keys per track in the active array
inline constexpr uint32_t kInitialKeysPerTrack = 3;  // keys 0, 1 and 2 are needed at frame 0
/// A jump state saves a track's window as its oldest key (the others are
/// re-read from the track's run) once the window holds no initial key (keys
/// read >= 7).
inline constexpr uint32_t kRestoreFromRunKeys = kInitialKeysPerTrack + kWindowSize;
/// Whether a streamed track of `key_count` keys has room for an oldest key
/// in every jump state (one with fewer keys never reads kRestoreFromRunKeys).
constexpr bool saves_oldest_key(uint32_t key_count) { return key_count >= kRestoreFromRunKeys; }
/// Bits of a streamed track's saved window in every jump state: its
/// keys-read count and, when it saves oldest keys, the frame difference and
/// `coded_count` absolute codes, and the "negated" bit on tracks with one.
/// The packer writes, and StreamView::open reads, exactly this many.
constexpr uint32_t saved_window_bits(uint32_t key_count, uint32_t key_index_bits, uint32_t frame_difference_bits,
                                     uint32_t absolute_bits, uint32_t coded_count, bool negation_bits) {
  if (!saves_oldest_key(key_count)) return key_index_bits;
  return key_index_bits + frame_difference_bits + absolute_bits * coded_count + (negation_bits ? 1u : 0u);
}
/// Bits of a streamed track's width of saved frame differences.
inline constexpr uint32_t kJumpFrameDifferenceWidthBits = 5;
/// A stored constant rotation must be this close to unit length (the player returns it as stored).
inline constexpr double kUnitQuaternionTolerance = 1e-3;

/// Stream-wide flags.
enum StreamFlags : uint16_t {
  kFlagZstdKeyStream = 1u << 1,  // the key stream is zstd blocks
  kFlagAdditive = 1u << 2,       // the clip is additive: compose it onto a base (apply_additive)
};
inline constexpr uint32_t kKnownStreamFlags = kFlagZstdKeyStream | kFlagAdditive;

/// What an additive clip is the difference to (stream metadata).
enum class AdditiveBase : uint8_t {
  kNone = 0,        // not additive
  kFirstFrame = 1,  // the clip's own first frame
  kBindPose = 2,    // the skeleton's rest pose
  kClip = 3,        // another clip, frame by frame (its last frame held past its end)
};

/// Byte offsets of the header fields.
namespace header_offset {
inline constexpr uint32_t kMagic = 0;               // u32
inline constexpr uint32_t kVersion = 4;             // u16
inline constexpr uint32_t kFlags = 6;               // u16
inline constexpr uint32_t kSampleRate = 8;          // f32, frames per second
inline constexpr uint32_t kFrameCount = 12;         // u32
inline constexpr uint32_t kBoneCount = 16;          // u32
inline constexpr uint32_t kJumpIntervalFrames = 20; // u32, 0 = no jump frames
inline constexpr uint32_t kInitialKeysOffset = 24;  // u32, bytes from the start (the key widths end here)
inline constexpr uint32_t kKeyStreamOffset = 28;
inline constexpr uint32_t kJumpIndexOffset = 32;
inline constexpr uint32_t kJumpStatesOffset = 36;
inline constexpr uint32_t kMetadataOffset = 40;
inline constexpr uint32_t kTotalSize = 44;          // u32, bytes of the whole stream
inline constexpr uint32_t kKeyStreamBits = 48;      // u32, bits used in the key stream
inline constexpr uint32_t kStreamKeyCount = 52;     // u32, keys in the key stream
inline constexpr uint32_t kChecksum = 56;           // u32, stream_checksum (checksum.h): XXH3 of the stream but this field
inline constexpr uint32_t kKeyWidthsOffset = 60;    // u32 (the tables end here)
}  // namespace header_offset

inline constexpr uint32_t kHeaderSize = 64;  // the tables start here
/// Bits of a stream's scalar track count - 1, after its "scalar tracks follow" bit.
inline constexpr uint32_t kScalarCountBits = 16;
/// The metadata's extensions byte (stream_format.h's metadata layout).
enum MetadataExtensions : uint8_t {
  kMetadataScalars = 1u << 0,   // the scalar tracks' part follows
  kMetadataAdditive = 1u << 1,  // the additive base follows
  kMetadataRestValues = 1u << 2,  // the rest tracks' values follow (version 11)
  kMetadataNameHashes = 1u << 3,  // the bones' name hashes follow (version 11; `--names hash`)
};
inline constexpr uint32_t kJumpIndexEntrySize = 4;
inline constexpr uint32_t kMaxStringBytes = 0xFFFFu;  // metadata strings have a u16 length
/// Largest block a key stream block may decompress to; bigger claims are refused
/// before anything is allocated.
inline constexpr uint64_t kMaxKeyStreamBlockBytes = uint64_t{256} << 20;
/// A zstd key stream block decompresses to at most kMaxZstdExpansion times
/// its frame's bytes plus kZstdExpansionSlackBytes: what a reader allocates
/// for a block stays in proportion to the file. Rice-coded keys are near
/// their entropy (zstd makes every shared clip's stream slightly larger);
/// only a degenerate stream compresses more, and the packer refuses to write
/// one with zstd.
inline constexpr uint64_t kMaxZstdExpansion = 32;
inline constexpr uint64_t kZstdExpansionSlackBytes = 4096;
inline constexpr uint64_t max_zstd_block_bytes(uint64_t frame_bytes) {
  return kMaxZstdExpansion * frame_bytes + kZstdExpansionSlackBytes;
}

}  // namespace ks
