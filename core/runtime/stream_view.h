#pragma once
// StreamView: a checked view of a packed stream (DESIGN §7). open() trusts
// nothing: it checks the checksum and bounds-checks every offset, count,
// index and bit width of the tables, the initial keys, the jump frames and
// the zstd frame's header, and every segment's key widths, which must add up
// to the key stream's length. That is what an engine pays at every load, in
// microseconds: it reads neither the key stream nor its zstd frame. A Player
// may then decode the stream: whatever the key stream holds, it reads
// nothing out of bounds, allocates nothing and stops after the keys the
// tables promise (a forged key stream gives wrong poses, never a crash).
// StreamCheck::kFull, for tools and tests, also walks every key (frames in
// order and in the clip, codes in range, the stream exactly as long as its
// keys) and replays the stream to prove every jump frame holds the state
// forward play reaches: what makes a seek bit-exact. The view borrows the
// bytes: keep them alive and unchanged while the view or a Player of it is
// in use.

#include <cstdint>
#include <span>
#include <vector>

#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/curve.h"
#include "keystream/runtime/key_coding.h"
#include "keystream/runtime/quantization.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_key_layout.h"
#include "keystream/runtime/stream_metadata.h"

namespace ks {

/// One track as the track table describes it.
struct StreamTrack {
  // Ordered so that the byte-wide fields share one padding (72 bytes, not
  // 80): a view holds one per track, 150,000 for a rig of 50,000 bones.
  TrackKind kind = TrackKind::kTranslation;
  TrackCoding coding = TrackCoding::kIdentity;
  uint8_t components = 0;  // scalar tracks: 1..4 (their values past it are 0); 0 for a bone's
  Interpolation interpolation = Interpolation::kHermite;  // animated tracks
  KeyCoding key_coding;  // animated tracks
  uint32_t bone = 0;        // a bone's track: the bone; a scalar track: its index among them
  uint32_t key_count = 0;  // animated tracks: 2 or more; 0 for constant ones
  // Animated tracks: how their keys are coded. Identity and constant tracks
  // code no component: `quantization.constant` is their value.
  TrackQuantization quantization;
  uint64_t key_widths_bit = 0;     // tracks of more than three keys: where their segments' widths start in the
                                   // key widths section (stream_key_layout.h)
};

/// Components a track's table record stores: a scalar track's own count,
/// else its kind's (3 for a vec3, 4 for a rotation).
inline int stored_components(const StreamTrack& track) {
  return track.kind == TrackKind::kScalar ? track.components : component_count(track.kind);
}

/// Where a seek can resume: the state after every key with need frame <= frame.
struct JumpFrame {
  uint32_t frame = 0;
  uint32_t stream_keys_read = 0;  // keys of the key stream read by then, over every track
  uint32_t state_bit_offset = 0;  // its state in the jump states (they follow one another, all one length)
};

/// How much StreamView::open checks (see above).
enum class StreamCheck : uint8_t {
  kFast = 0,  // the checksum and every table, offset, count and jump state: an engine's load
  kFull = 1,  // also every key of the key stream, and every jump frame against forward play
};

class StreamView {
 public:
  /// Checks `bytes` and returns a view of them, or an error naming the first
  /// problem (prefixed by `name`, e.g. the file the bytes came from).
  static Result<StreamView> open(std::span<const uint8_t> bytes, const char* name = "stream",
                                 StreamCheck check = StreamCheck::kFast);

  float sample_rate_hz() const { return m_sample_rate_hz; }
  uint32_t frame_count() const { return m_frame_count; }
  uint32_t last_frame() const { return m_frame_count - 1; }
  float duration_s() const { return static_cast<float>(m_frame_count - 1) / m_sample_rate_hz; }
  uint32_t bone_count() const { return static_cast<uint32_t>(m_parents.size()); }
  /// Scalar tracks (morph weights, user curves): tracks() after the bones' three each.
  uint32_t scalar_track_count() const { return m_scalar_track_count; }
  std::span<const StreamTrack> bone_tracks() const { return std::span(m_tracks).first(3 * m_parents.size()); }
  std::span<const StreamTrack> scalar_tracks() const { return std::span(m_tracks).subspan(3 * m_parents.size()); }
  /// Whether the clip is additive (compose it onto a base: apply_additive).
  bool additive() const { return (m_flags & kFlagAdditive) != 0; }
  uint32_t flags() const { return m_flags; }
  uint32_t version() const { return m_version; }
  /// Names and the tolerance the fit promised.
  const StreamMetadata& metadata() const { return m_metadata; }
  /// Parent of each bone, -1 for a root; parents come before children.
  std::span<const int32_t> parents() const { return m_parents; }
  std::span<const StreamTrack> tracks() const { return m_tracks; }
  std::span<const JumpFrame> jump_frames() const { return m_jump_frames; }
  uint32_t jump_interval_frames() const { return m_jump_interval_frames; }
  uint32_t total_key_count() const { return m_total_key_count; }
  uint32_t stream_key_count() const { return m_stream_key_count; }
  /// Animated tracks: the ones with keys.
  uint32_t animated_track_count() const { return m_animated_track_count; }
  /// Tracks with more than three keys: the only ones whose window changes
  /// after frame 0, and the only ones a jump frame saves.
  uint32_t streamed_track_count() const { return m_streamed_track_count; }
  uint32_t key_index_bits() const { return m_key_index_bits; }
  /// Bytes of the tables (header, parents, track records).
  size_t table_bytes() const { return m_table_bytes; }

  std::span<const uint8_t> bytes() const { return m_bytes; }
  /// The widths of every segment of stream keys (stream_key_layout.h).
  std::span<const uint8_t> key_widths() const { return m_key_widths; }
  std::span<const uint8_t> initial_keys() const { return m_initial_keys; }
  /// The key stream section: the plain key stream, or for a zstd stream its
  /// frame's size and the frame.
  std::span<const uint8_t> key_stream() const { return m_key_stream; }
  /// Bits of the plain key stream (before any compression).
  uint32_t key_stream_bits() const { return m_key_stream_bits; }
  /// Bytes of the plain key stream.
  size_t key_stream_bytes() const { return (size_t{m_key_stream_bits} + 7) / 8; }
  bool key_stream_compressed() const { return (m_flags & kFlagZstdKeyStream) != 0; }
  /// The zstd frame of a compressed key stream (empty for a plain one); it
  /// declares key_stream_bytes().
  std::span<const uint8_t> key_stream_frame() const { return m_key_stream_frame; }
  /// Decompresses key_stream_frame() into `out` (key_stream_bytes() long);
  /// fails when the frame does not decompress to exactly that (which
  /// StreamCheck::kFast does not rule out).
  Status decompress_key_stream(std::span<uint8_t> out) const;
  /// Where each animated track's run of stream keys starts in the plain key
  /// stream, in track order (a track of three keys or fewer has an empty run),
  /// then where the last run ends.
  std::span<const uint64_t> run_starts() const { return m_run_starts; }
  /// Every segment of stream keys (stream_key_layout.h), each animated
  /// track's in turn in track order: where it starts in the plain key
  /// stream and its keys' layout. A player loads a lane's layout from here
  /// when its track opens a segment, and resumes a run here after a jump
  /// frame.
  std::span<const StreamSegment> segments() const { return m_segments; }
  /// Each animated track's first segment in segments(), in track order, then
  /// the segment count.
  std::span<const uint32_t> first_segments() const { return m_first_segments; }
  /// Each streamed track's width of the frame differences its jump states
  /// save (stream_format.h), in track order; empty without jump frames.
  std::span<const uint8_t> jump_frame_difference_bits() const { return m_jump_frame_difference_bits; }
  std::span<const uint8_t> jump_states() const { return m_jump_states; }
  /// Bits of one jump state: every state has the same layout (stream_format.h).
  uint64_t jump_state_bits() const { return m_jump_state_bits; }
  /// Where each streamed track's saved window (its keys-read count, then its
  /// oldest key's fields) starts within a jump state, in track order; empty
  /// without jump frames.
  std::span<const uint32_t> saved_window_offsets() const { return m_saved_window_offsets; }
  /// Bytes of the jump index and jump states together.
  size_t jump_frame_bytes() const;

 private:
  std::span<const uint8_t> m_bytes;
  std::span<const uint8_t> m_key_widths;
  std::span<const uint8_t> m_initial_keys;
  std::span<const uint8_t> m_key_stream;
  std::span<const uint8_t> m_jump_index;
  std::span<const uint8_t> m_jump_states;
  float m_sample_rate_hz = 0.f;
  uint32_t m_frame_count = 0;
  uint32_t m_flags = 0;
  uint32_t m_version = 0;
  StreamMetadata m_metadata;
  std::span<const uint8_t> m_key_stream_frame;
  std::vector<uint64_t> m_run_starts;
  std::vector<StreamSegment> m_segments;
  std::vector<uint32_t> m_first_segments;
  std::vector<uint8_t> m_jump_frame_difference_bits;
  std::vector<uint32_t> m_saved_window_offsets;
  uint64_t m_jump_state_bits = 0;
  uint32_t m_jump_interval_frames = 0;
  uint32_t m_total_key_count = 0;
  uint32_t m_stream_key_count = 0;
  uint32_t m_key_stream_bits = 0;
  uint32_t m_streamed_track_count = 0;
  uint32_t m_animated_track_count = 0;
  uint32_t m_scalar_track_count = 0;
  size_t m_table_bytes = 0;
  uint32_t m_key_index_bits = 0;
  std::vector<int32_t> m_parents;
  std::vector<StreamTrack> m_tracks;
  std::vector<JumpFrame> m_jump_frames;

  friend class StreamParser;
};

/// Reads a key's "negated" bit, which only rotation tracks with negation
/// bits carry (stream_format.h); false for the others.
template <class Reader>
inline bool read_negation(Reader& reader, const StreamTrack& track) {
  return track.key_coding.negation_bits && read_field(reader, 1) != 0;
}

/// Reads a key of `track` whose codes are absolute (a track's key 0, the
/// first key a jump frame saves); returns whether the key is negated.
/// Reader: BitReader or a RiceWindow over one.
template <class Reader>
inline bool read_absolute_codes(Reader& reader, const StreamTrack& track, int32_t codes[4]) {
  const uint32_t bits = track.key_coding.absolute_bits;
  for (int c = 0; c < 4; ++c) {
    codes[c] = track.quantization.coded(c) ? sign_extend(read_field(reader, bits), bits) : 0;
  }
  return read_negation(reader, track);
}

/// Reads a key written as Rice-coded differences from the key before it (a
/// track's keys 1 and 2, and the keys a jump frame saves): `frame` and
/// `codes` hold that key's and become this one's; returns whether the key
/// is negated. Unsigned arithmetic, so untrusted differences wrap instead of
/// overflowing (StreamView::open refuses codes and frames out of range).
template <class Reader>
inline bool read_key_differences(RiceWindow<Reader>& bits, const KeyCoding& coding, uint8_t coded_mask,
                                 uint32_t& frame, int32_t codes[4]) {
  frame += bits.read(coding.frame_rice) + coding.frame_delta_min;
  for (int c = 0; c < 4; ++c) {
    if (((coded_mask >> c) & 1u) == 0) continue;
    const int32_t difference = unzigzag(bits.read(coding.value_rice[c]));
    codes[c] = static_cast<int32_t>(static_cast<uint32_t>(codes[c]) + static_cast<uint32_t>(difference));
  }
  return coding.negation_bits && bits.read_bit() != 0;
}
/// The same from a reader, which it leaves past the key.
template <class Reader>
inline bool read_key_differences(Reader& reader, const KeyCoding& coding, uint8_t coded_mask, uint32_t& frame,
                                 int32_t codes[4]) {
  RiceWindow<Reader> bits(reader);
  const bool negated = read_key_differences(bits, coding, coded_mask, frame, codes);
  bits.finish();
  return negated;
}
/// The same for a track of the track table.
template <class Reader>
inline bool read_key_differences(Reader& reader, const StreamTrack& track, uint32_t& frame, int32_t codes[4]) {
  return read_key_differences(reader, track.key_coding, track.quantization.coded_mask, frame, codes);
}

}  // namespace ks
