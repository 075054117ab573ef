// StreamParser (stream_parser.h): the key widths, the initial keys, the key
// stream and the jump frames.

#include <zstd.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

#include "keystream/runtime/stream_format.h"
#include "keystream/runtime/stream_parser.h"

namespace ks {

Status StreamParser::parse_key_widths(StreamView& view) {
  // The section's size first, from the tables alone: a forged key count
  // must not make the loop below long.
  uint64_t expected_bits = 0;
  uint64_t total_segments = 0;
  for (StreamTrack& track : view.m_tracks) {
    if (track.coding != TrackCoding::kAnimated) continue;
    track.key_widths_bit = expected_bits;
    expected_bits += uint64_t{segment_count(track.key_count)} * segment_width_bits(track.quantization.coded_mask);
    total_segments += segment_count(track.key_count);
  }
  if (view.m_key_widths.size() != (expected_bits + 7) / 8) {
    return fail("key widths section is " + std::to_string(view.m_key_widths.size()) + " bytes, the tracks' " +
                "segments need " + std::to_string((expected_bits + 7) / 8));
  }
  BitReader reader(view.m_key_widths);
  uint64_t stream_bits = 0;
  view.m_run_starts.clear();
  view.m_run_starts.reserve(view.m_animated_track_count + 1);
  view.m_first_segments.clear();
  view.m_first_segments.reserve(view.m_animated_track_count + 1);
  view.m_segments.clear();
  // The widths section holds every segment's widths (checked above), so
  // this is in proportion to the file.
  view.m_segments.reserve(total_segments);
  for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
    const StreamTrack& track = view.m_tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    // The runs follow one another in track order (stream_format.h).
    view.m_run_starts.push_back(stream_bits);
    view.m_first_segments.push_back(static_cast<uint32_t>(view.m_segments.size()));
    const uint32_t segments = segment_count(track.key_count);
    for (uint32_t s = 0; s < segments; ++s) {
      uint32_t widths[kKeyFields];
      read_segment_widths(reader, track.quantization.coded_mask, widths);
      const uint32_t largest_code = *std::max_element(widths + 1, widths + kKeyFields);
      if (widths[0] > kMaxFrameDifferenceBits || largest_code > kMaxCodeDifferenceBits) {
        return fail("track " + std::to_string(t) + " segment " + std::to_string(s) + " has a key field " +
                    std::to_string(std::max(widths[0], largest_code)) + " bits wide, more than a difference needs");
      }
      const uint32_t first = kInitialKeysPerTrack + s * kKeysPerSegment;
      const uint32_t keys = std::min(kKeysPerSegment, track.key_count - first);
      StreamSegment& segment = view.m_segments.emplace_back();
      // A start past 2^32 bits is refused below (the key stream's length is a u32).
      segment.start_bit = static_cast<uint32_t>(stream_bits);
      for (uint32_t f = 0; f < kKeyFields; ++f) segment.widths |= widths[f] << (f * kSegmentWidthBits);
      segment.widths |= (track.key_coding.negation_bits ? 1u : 0u) << kSegmentNegationBit;
      stream_bits += uint64_t{keys} * make_stream_key_layout(widths, track.key_coding.negation_bits).key_bits;
    }
  }
  view.m_run_starts.push_back(stream_bits);
  view.m_first_segments.push_back(static_cast<uint32_t>(view.m_segments.size()));
  if (stream_bits != view.m_key_stream_bits) {
    return fail("key stream is " + std::to_string(view.m_key_stream_bits) + " bits, its keys' widths add up to " +
                std::to_string(stream_bits));
  }
  return {};
}

Status StreamParser::check_key(const StreamView& view, uint32_t t, uint32_t k, const int32_t codes[4]) const {
  // Built only for a message: this runs for every key.
  const auto where = [&] { return "track " + std::to_string(t) + " key " + std::to_string(k); };
  const uint32_t frame = m_frames[3 * t + 2];
  if (frame > view.last_frame()) {
    return fail(where() + " is at frame " + std::to_string(frame) + ", past the last frame " +
                std::to_string(view.last_frame()));
  }
  if (k > 0 && frame < m_frames[3 * t + 1]) {
    return fail(where() + " is at frame " + std::to_string(frame) + ", before the key it follows (frame " +
                std::to_string(m_frames[3 * t + 1]) + ")");
  }
  if (k > 1 && frame == m_frames[3 * t + 1] && frame == m_frames[3 * t]) {
    return fail(where() + " is the third key at frame " + std::to_string(frame));
  }
  if (k + 1 == view.m_tracks[t].key_count && frame != view.last_frame()) {
    return fail(where() + " is the last key but is at frame " + std::to_string(frame) + ", not the last frame " +
                std::to_string(view.last_frame()));
  }
  const StreamTrack& track = view.m_tracks[t];
  for (int c = 0; c < 4; ++c) {
    if (codes[c] > kMaxCodeMagnitude || codes[c] < -kMaxCodeMagnitude ||
        (track.kind == TrackKind::kRotation &&
         std::fabs(static_cast<float>(codes[c]) * track.quantization.step) > 2.f)) {
      return fail(where() + " has a code out of range (" + std::to_string(codes[c]) + ")");
    }
  }
  return {};
}

template <class Reader>
Status StreamParser::read_key(Reader& reader, const StreamView& view, uint32_t t, uint32_t k) {
  const StreamTrack& track = view.m_tracks[t];
  int32_t* codes = &m_codes[4 * t];
  uint32_t frame = m_frames[3 * t + 2];
  if (k == 0) {
    read_absolute_codes(reader, track, codes);
    frame = 0;
  } else if (k < kInitialKeysPerTrack) {
    read_key_differences(reader, track, frame, codes);
  } else {
    if (opens_segment(k)) {
      m_layouts[t] = segment_layout(view.m_key_widths, track.key_widths_bit, segment_of_key(k),
                                    track.quantization.coded_mask, track.key_coding.negation_bits);
    }
    read_stream_key(reader, m_layouts[t], track.key_coding.frame_delta_min, frame, codes);
  }
  m_frames[3 * t] = m_frames[3 * t + 1];
  m_frames[3 * t + 1] = m_frames[3 * t + 2];
  m_frames[3 * t + 2] = frame;
  return check_key(view, t, k, codes);
}

Status StreamParser::check_initial_keys(const StreamView& view) {
  BitReader reader(view.m_initial_keys);
  m_frames.assign(view.m_tracks.size() * 3, 0);
  m_codes.assign(view.m_tracks.size() * 4, 0);
  m_read.assign(view.m_tracks.size(), 0);
  m_layouts.assign(view.m_tracks.size(), StreamKeyLayout{});
  for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
    const StreamTrack& track = view.m_tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    const uint32_t count = std::min(track.key_count, kInitialKeysPerTrack);
    for (uint32_t k = 0; k < count; ++k) {
      const Status read = read_key(reader, view, t, k);
      // A read past the end gives 0: report the truncation, not the value.
      if (reader.overrun()) {
        return fail("initial keys are truncated at track " + std::to_string(t) + " key " + std::to_string(k));
      }
      if (!read) return read;
    }
    m_read[t] = count;
  }
  if ((reader.position() + 7) / 8 != view.m_initial_keys.size()) return fail("initial keys section has trailing bytes");
  return {};
}

Status StreamParser::check_key_stream(const StreamView& view) {
  std::vector<uint8_t> plain;  // a compressed key stream, decompressed for the check
  std::span<const uint8_t> bytes = view.m_key_stream;
  if (view.key_stream_compressed()) {
    plain.resize(view.key_stream_bytes());
    if (Status s = view.decompress_key_stream(plain); !s) return fail(s.error());
    bytes = plain;
  }
  uint32_t animated = 0;
  for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
    const StreamTrack& track = view.m_tracks[t];
    if (track.coding != TrackCoding::kAnimated) continue;
    const uint64_t start = view.m_run_starts[animated];
    const uint64_t end = view.m_run_starts[++animated];
    // Only the run's own bits: a key reaching past them is truncated.
    BitReader reader(bytes.first(static_cast<size_t>((end + 7) / 8)), start);
    for (uint32_t k = m_read[t]; k < track.key_count; ++k) {
      const Status read = read_key(reader, view, t, k);
      if (reader.overrun() || reader.position() > end) {
        return fail("track " + std::to_string(t) + " key " + std::to_string(k) + " runs past the end of its run (bit " +
                    std::to_string(end) + " of the key stream)");
      }
      if (!read) return read;
    }
    if (reader.position() != end) {
      return fail("track " + std::to_string(t) + "'s run ends at bit " + std::to_string(reader.position()) +
                  ", its widths say " + std::to_string(end));
    }
  }
  return {};
}

Status StreamParser::parse_key_stream_section(StreamView& view) {
  const std::span<const uint8_t> section = view.m_key_stream;
  const uint64_t expected = view.key_stream_bytes();
  if (!view.key_stream_compressed()) {
    if (section.size() != expected) {
      return fail("key stream section is " + std::to_string(section.size()) + " bytes, expected " +
                  std::to_string(expected) + " for its " + std::to_string(view.m_key_stream_bits) + " bits");
    }
    return {};
  }
  if (section.size() < 4) return fail("key stream section is too short for its zstd frame's size");
  uint32_t size;
  std::memcpy(&size, section.data(), 4);
  if (size != section.size() - 4) {
    return fail("key stream's zstd frame is " + std::to_string(size) + " bytes, its section holds " +
                std::to_string(section.size() - 4));
  }
  view.m_key_stream_frame = section.subspan(4);
  // Keys compress little (stream_format.h): a frame may not stand for more
  // than max_zstd_block_bytes, so what a player allocates for the key
  // stream stays in proportion to the file.
  if (expected > kMaxKeyStreamBlockBytes || expected > max_zstd_block_bytes(size)) {
    return fail("key stream needs " + std::to_string(expected) + " bytes, more than its " + std::to_string(size) +
                "-byte zstd frame may expand to (" + std::to_string(max_zstd_block_bytes(size)) + ")");
  }
  const unsigned long long declared = ZSTD_getFrameContentSize(view.m_key_stream_frame.data(), size);
  if (declared == ZSTD_CONTENTSIZE_ERROR) return fail("key stream is not a zstd frame");
  if (declared == ZSTD_CONTENTSIZE_UNKNOWN) return fail("key stream's zstd frame does not declare its size");
  if (declared != expected) {
    return fail("key stream's zstd frame declares " + std::to_string(declared) + " bytes, its keys need " +
                std::to_string(expected));
  }
  return {};
}

Status StreamParser::parse_jump_frames(StreamView& view) {
  if (view.m_jump_index.size() != uint64_t{m_jump_frame_count} * kJumpIndexEntrySize) {
    return fail("jump index is " + std::to_string(view.m_jump_index.size()) + " bytes, expected " +
                std::to_string(kJumpIndexEntrySize) + " for each of " + std::to_string(m_jump_frame_count) +
                " jump frames");
  }
  // Each jump frame saves at least the keys-read count of every streamed
  // track: checked before anything is sized by the jump frame count.
  if (uint64_t{m_jump_frame_count} * view.m_streamed_track_count * std::max<uint32_t>(view.m_key_index_bits, 1) >
      uint64_t{view.m_jump_states.size()} * 8) {
    return fail("jump states are too short for " + std::to_string(m_jump_frame_count) + " jump frames");
  }
  if (uint64_t{view.m_jump_states.size()} * 8 > UINT32_MAX) return fail("jump states exceed 2^32 bits");
  view.m_jump_frames.resize(m_jump_frame_count);
  BitReader states(view.m_jump_states);
  view.m_jump_frame_difference_bits.clear();
  view.m_saved_window_offsets.clear();
  view.m_jump_state_bits = 0;
  if (m_jump_frame_count > 0) {
    view.m_jump_frame_difference_bits.reserve(view.m_streamed_track_count);
    view.m_saved_window_offsets.reserve(view.m_streamed_track_count);
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      const StreamTrack& track = view.m_tracks[t];
      if (track.coding != TrackCoding::kAnimated || track.key_count <= kInitialKeysPerTrack) continue;
      const uint32_t bits = states.read(kJumpFrameDifferenceWidthBits);
      if (bits > kFrameBits) {
        return fail("jump states give track " + std::to_string(t) + " frame differences " + std::to_string(bits) +
                    " bits wide, more than a frame needs");
      }
      view.m_jump_frame_difference_bits.push_back(static_cast<uint8_t>(bits));
      // Every state has the same layout (stream_format.h).
      view.m_saved_window_offsets.push_back(static_cast<uint32_t>(view.m_jump_state_bits));
      view.m_jump_state_bits +=
          saved_window_bits(track.key_count, view.m_key_index_bits, bits, track.key_coding.absolute_bits,
                            static_cast<uint32_t>(track.quantization.coded_count()), track.key_coding.negation_bits);
    }
    if (states.overrun()) return fail("jump states are truncated in their widths");
    if (states.position() + uint64_t{m_jump_frame_count} * view.m_jump_state_bits >
        uint64_t{view.m_jump_states.size()} * 8) {
      return fail("jump states are too short for " + std::to_string(m_jump_frame_count) + " jump frames of " +
                  std::to_string(view.m_jump_state_bits) + " bits");
    }
  }
  for (uint32_t j = 0; j < m_jump_frame_count; ++j) {
    JumpFrame& jump = view.m_jump_frames[j];
    const uint8_t* entry = view.m_jump_index.data() + uint64_t{j} * kJumpIndexEntrySize;
    std::memcpy(&jump.stream_keys_read, entry, 4);
    jump.state_bit_offset = static_cast<uint32_t>(states.position());
    jump.frame = (j + 1) * view.m_jump_interval_frames;
    const std::string where = "jump frame " + std::to_string(j);
    uint64_t stream_keys_read = 0;
    uint32_t place = 0;
    for (uint32_t t = 0; t < view.m_tracks.size(); ++t) {
      const StreamTrack& track = view.m_tracks[t];
      if (track.coding != TrackCoding::kAnimated || track.key_count <= kInitialKeysPerTrack) continue;
      const uint32_t keys_read = states.read(view.m_key_index_bits);
      if (keys_read < kInitialKeysPerTrack || keys_read > track.key_count) {
        return fail(where + " says track " + std::to_string(t) + " has read " + std::to_string(keys_read) + " of its " +
                    std::to_string(track.key_count) + " keys");
      }
      stream_keys_read += keys_read - kInitialKeysPerTrack;
      if (saves_oldest_key(track.key_count)) {
        const uint32_t before = states.read(view.m_jump_frame_difference_bits[place]);
        int32_t codes[4];
        const bool negated = read_absolute_codes(states, track, codes);
        if (keys_read < kRestoreFromRunKeys) {
          // No oldest key yet: zeros, so that a state decodes one way only.
          if (before != 0 || negated || codes[0] != 0 || codes[1] != 0 || codes[2] != 0 || codes[3] != 0) {
            return fail(where + " saves a key for track " + std::to_string(t) + ", which has read only " +
                        std::to_string(keys_read) + " keys");
          }
        } else if (before > jump.frame) {
          return fail(where + " holds a key " + std::to_string(before) +
                      " frames before it, before frame 0, for track " + std::to_string(t));
        }
        for (int c = 0; c < 4; ++c) {
          if (codes[c] > kMaxCodeMagnitude || codes[c] < -kMaxCodeMagnitude) {
            return fail(where + " holds a code out of range for track " + std::to_string(t));
          }
        }
      }
      ++place;
      if (states.overrun()) return fail("jump states are truncated at " + where);
    }
    if (stream_keys_read != jump.stream_keys_read) {
      return fail(where + " says " + std::to_string(jump.stream_keys_read) + " stream keys are read, its tracks' " +
                  "counts add up to " + std::to_string(stream_keys_read));
    }
    if (j > 0 && jump.stream_keys_read < view.m_jump_frames[j - 1].stream_keys_read) {
      return fail(where + " has read fewer keys than the jump frame before it");
    }
  }
  if ((states.position() + 7) / 8 != view.m_jump_states.size()) return fail("jump states section has trailing bytes");
  return {};
}

}  // namespace ks
