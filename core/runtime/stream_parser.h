#pragma once
// Parses and checks a stream for StreamView::open (stream_format.h); every
// check names what it found wrong. Private to the runtime:
// stream_parser.cpp reads the header, the tables, the tracks and the
// metadata; stream_parser_keys.cpp the keys, the key stream and the jump
// frames.

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "keystream/runtime/bit_reader.h"
#include "keystream/runtime/result.h"
#include "keystream/runtime/stream_key_layout.h"
#include "keystream/runtime/stream_view.h"

namespace ks {

class StreamParser {
 public:
  StreamParser(std::span<const uint8_t> bytes, const char* name) : m_bytes(bytes), m_name(name) {}

  Result<StreamView> parse(StreamCheck check);

 private:
  Error fail(const std::string& what) const { return Error{std::string(m_name) + ": " + what}; }

  uint32_t u32(uint32_t offset) const {
    uint32_t v;
    std::memcpy(&v, m_bytes.data() + offset, 4);
    return v;
  }
  uint16_t u16(uint32_t offset) const {
    uint16_t v;
    std::memcpy(&v, m_bytes.data() + offset, 2);
    return v;
  }
  float f32(uint32_t offset) const {
    float v;
    std::memcpy(&v, m_bytes.data() + offset, 4);
    return v;
  }

  Status parse_header(StreamView& view);
  Status parse_tables(StreamView& view);
  // The "scalar tracks follow" bit after the bones' records and, when set,
  // their count; makes room for their records (at least 4 bits each: a
  // count the section cannot hold is refused before allocating for it).
  Status read_scalar_count(BitReader& reader, StreamView& view);
  // A constant or rest value: finite, and a rotation one the player may
  // return as it is.
  Status check_constant(const StreamTrack& track, const std::string& where);
  Status parse_track(BitReader& reader, const StreamView& view, uint32_t t, StreamTrack& track);
  Status parse_metadata(StreamView& view);
  // Reads every segment's widths: each within what a difference can need,
  // and all of them together exactly the key stream's length. That bounds
  // what a zstd stream may claim to decompress to before anything is
  // allocated, and lets the player trust every width.
  Status parse_key_widths(StreamView& view);
  // A key's frame must not go back, reach past the clip, or make a third
  // key at one frame; its codes must stay within range.
  Status check_key(const StreamView& view, uint32_t t, uint32_t k, const int32_t codes[4]) const;
  // Reads key k of track t (absolute for key 0, Rice-coded differences for
  // keys 1 and 2, fixed-width differences for stream keys) and checks it.
  template <class Reader>
  Status read_key(Reader& reader, const StreamView& view, uint32_t t, uint32_t k);
  Status check_initial_keys(const StreamView& view);
  // Reads every track's run in turn; each must end where the next starts.
  Status check_key_stream(const StreamView& view);
  // The plain key stream's size, or for a zstd stream its frame's declared
  // size, checked without decompressing.
  Status parse_key_stream_section(StreamView& view);
  Status parse_jump_frames(StreamView& view);

  std::span<const uint8_t> m_bytes;
  const char* m_name;
  uint32_t m_bone_count = 0;
  uint32_t m_scalar_count = 0;
  uint32_t m_jump_frame_count = 0;
  std::span<const uint8_t> m_tables;
  std::span<const uint8_t> m_metadata;
  uint32_t m_rest_value_count = 0;         // components of every rest track (their values are in the metadata)
  std::vector<uint32_t> m_frames;          // per track: frames of the three keys read last, oldest first
  std::vector<int32_t> m_codes;            // per track: codes of the key read last
  std::vector<uint32_t> m_read;            // per track: keys read
  std::vector<StreamKeyLayout> m_layouts;  // per track: the layout of its current segment of stream keys
};

}  // namespace ks
