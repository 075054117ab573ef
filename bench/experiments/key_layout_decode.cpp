// key_layout_decode: what a key costs to decode in the layout the stream
// uses (Rice-coded differences, read as the player reads them) against the
// candidate layout key_cost.h's segmented_key_bits counts (fixed widths per
// segment of a track's keys), over one clip's stream keys in stream order.
// An experiment for issue 15's next format, not a part of the codec: both
// layouts are written here, decoded back (checked against the fitted keys)
// and timed in one process.
//
// usage: key_layout_decode CLIP [PASSES]

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <vector>

#include "core/offline/bit_writer.h"
#include "core/offline/fit.h"
#include "core/offline/import.h"
#include "core/offline/key_cost.h"
#include "core/offline/pack.h"
#include "core/runtime/bit_reader.h"
#include "core/runtime/key_coding.h"
#include "core/runtime/stream_format.h"

namespace ks {
namespace {

constexpr uint32_t kSegmentKeys = 16;
constexpr uint32_t kWindowBits = 57;  // what BitReader::peek_window guarantees

// What a reader keeps per track: the newest key, and for the fixed layout
// where each field sits in a key of the current segment.
struct TrackState {
  int32_t codes[4] = {0, 0, 0, 0};
  uint32_t frame = 0;
  uint32_t width[5] = {0, 0, 0, 0, 0};  // frame difference, then components
  uint32_t shift[5] = {0, 0, 0, 0, 0};
  uint32_t key_bits = 0;                // every field and the "negated" bit
};

// The first stream key of a track opens a segment wherever it falls.
bool opens_segment(uint32_t key) { return key == kInitialKeysPerTrack || (key - 1) % kSegmentKeys == 0; }

// The widths of the segment holding key `key` of `track`, as
// segmented_key_bits counts them.
void segment_widths(const FittedTrack& track, const KeyCoding& coding, uint32_t key, uint32_t (&width)[5]) {
  const size_t first = 1 + (key - 1) / kSegmentKeys * kSegmentKeys;
  segment_field_widths(track, coding, first, std::min(track.keys.size(), first + kSegmentKeys), width);
}

struct Layouts {
  std::vector<uint8_t> rice;
  std::vector<uint8_t> fixed;
};

Layouts write_layouts(const FittedClip& clip, const std::vector<KeyCoding>& codings,
                      const std::vector<StreamKey>& order) {
  BitWriter rice;
  BitWriter fixed;
  for (const StreamKey& e : order) {
    const FittedTrack& track = clip.tracks[e.track];
    const KeyCoding& coding = codings[e.track];
    const FittedKey& before = track.keys[e.index - 1];
    const FittedKey& key = track.keys[e.index];
    const uint32_t frame_difference = key.frame - before.frame - coding.frame_delta_min;
    const bool negated = coding.negation_bits && is_negated(track, key);
    rice.write_rice(frame_difference, coding.frame_rice);
    for (int c = 0; c < 4; ++c) {
      if (track.quantization.coded(c)) rice.write_rice(zigzag(key.codes[c] - before.codes[c]), coding.value_rice[c]);
    }
    if (coding.negation_bits) rice.write(negated ? 1 : 0, 1);

    uint32_t width[5];
    segment_widths(track, coding, e.index, width);
    if (opens_segment(e.index)) {
      fixed.write(width[0], kSegmentWidthBits);
      for (int c = 0; c < 4; ++c) {
        if (track.quantization.coded(c)) fixed.write(width[c + 1], kSegmentWidthBits);
      }
    }
    fixed.write(frame_difference, width[0]);
    for (int c = 0; c < 4; ++c) {
      if (track.quantization.coded(c)) fixed.write(zigzag(key.codes[c] - before.codes[c]), width[c + 1]);
    }
    if (coding.negation_bits) fixed.write(negated ? 1 : 0, 1);
  }
  Layouts layouts{rice.bytes(), fixed.bytes()};
  // peek_window reads eight bytes at a time.
  layouts.rice.resize(layouts.rice.size() + 8);
  layouts.fixed.resize(layouts.fixed.size() + 8);
  return layouts;
}

void read_rice_key(BitReader& reader, TrackState& s, const KeyCoding& coding, uint8_t coded_mask, uint64_t& sink) {
  RiceWindow<BitReader> bits(reader);
  s.frame += bits.read(coding.frame_rice) + coding.frame_delta_min;
  for (int c = 0; c < 4; ++c) {
    if (((coded_mask >> c) & 1u) == 0) continue;
    s.codes[c] += unzigzag(bits.read(coding.value_rice[c]));
  }
  if (coding.negation_bits) sink += bits.read_bit();
  bits.finish();
}

void read_fixed_key(BitReader& reader, TrackState& s, const KeyCoding& coding, uint8_t coded_mask, bool opens,
                    uint64_t& sink) {
  if (opens) {
    uint32_t at = 0;
    for (int f = 0; f < 5; ++f) {
      const bool coded = f == 0 || ((coded_mask >> (f - 1)) & 1u) != 0;
      s.width[f] = coded ? reader.read(kSegmentWidthBits) : 0;
      s.shift[f] = at;
      at += s.width[f];
    }
    s.key_bits = at + (coding.negation_bits ? 1 : 0);
  }
  const auto field = [](uint64_t window, uint32_t shift, uint32_t width) {
    return static_cast<uint32_t>((window >> shift) & ((uint64_t{1} << width) - 1u));
  };
  if (s.key_bits <= kWindowBits) {
    // Every field from one window, at offsets known before reading it.
    const uint64_t window = reader.peek_window();
    s.frame += field(window, s.shift[0], s.width[0]) + coding.frame_delta_min;
    for (int c = 0; c < 4; ++c) s.codes[c] += unzigzag(field(window, s.shift[c + 1], s.width[c + 1]));
    if (coding.negation_bits) sink += field(window, s.key_bits - 1, 1);
    reader.skip(s.key_bits);
    return;
  }
  // A key wider than a window (rare): field by field.
  s.frame += reader.read(s.width[0]) + coding.frame_delta_min;
  for (int c = 0; c < 4; ++c) s.codes[c] += unzigzag(reader.read(s.width[c + 1]));
  if (coding.negation_bits) sink += reader.read(1);
}

int run(const char* path, int passes) {
  Result<ImportedClip> imported = import_clip(path);
  if (!imported) {
    std::fprintf(stderr, "key_layout_decode: %s\n", imported.error().c_str());
    return 1;
  }
  Result<FittedClip> fitted = fit_clip(imported.value().skeleton, imported.value().clip, FitSettings{}, 2);
  if (!fitted) {
    std::fprintf(stderr, "key_layout_decode: %s\n", fitted.error().c_str());
    return 1;
  }
  const FittedClip& clip = fitted.value();
  const std::vector<StreamKey> order = stream_key_order(clip);
  std::vector<KeyCoding> codings(clip.tracks.size());
  std::vector<TrackState> start(clip.tracks.size());
  for (uint32_t t = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.coding != TrackCoding::kAnimated || track.keys.size() < 4) continue;
    codings[t] = choose_key_coding(track);
    std::copy(track.keys[2].codes, track.keys[2].codes + 4, start[t].codes);
    start[t].frame = track.keys[2].frame;
  }
  const Layouts layouts = write_layouts(clip, codings, order);
  std::printf("%s: %zu stream keys; Rice %zu bytes, fixed widths per %u keys %zu bytes (%.3f)\n", path, order.size(),
              layouts.rice.size() - 8, kSegmentKeys, layouts.fixed.size() - 8,
              static_cast<double>(layouts.fixed.size() - 8) / static_cast<double>(layouts.rice.size() - 8));

  uint64_t sink = 0;
  for (const bool fixed : {false, true}) {
    std::vector<double> ns_per_key;
    for (int pass = 0; pass < passes; ++pass) {
      std::vector<TrackState> states = start;
      BitReader reader(fixed ? std::span<const uint8_t>(layouts.fixed) : std::span<const uint8_t>(layouts.rice));
      const auto t0 = std::chrono::steady_clock::now();
      for (const StreamKey& e : order) {
        const uint8_t mask = clip.tracks[e.track].quantization.coded_mask;
        if (fixed) {
          read_fixed_key(reader, states[e.track], codings[e.track], mask, opens_segment(e.index), sink);
        } else {
          read_rice_key(reader, states[e.track], codings[e.track], mask, sink);
        }
      }
      const auto t1 = std::chrono::steady_clock::now();
      const double ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
      ns_per_key.push_back(ns / static_cast<double>(order.size()));
      // Every track must end at its last key, or the timing means nothing.
      for (uint32_t t = 0; t < clip.tracks.size(); ++t) {
        const FittedTrack& track = clip.tracks[t];
        if (track.coding != TrackCoding::kAnimated || track.keys.size() < 4) continue;
        const FittedKey& last = track.keys.back();
        bool same = states[t].frame == last.frame;
        for (int c = 0; c < 4; ++c) {
          same = same && (!track.quantization.coded(c) || states[t].codes[c] == last.codes[c]);
        }
        if (!same) {
          std::fprintf(stderr, "key_layout_decode: the %s layout decoded track %u wrong\n",
                       fixed ? "fixed" : "Rice", t);
          return 1;
        }
      }
    }
    std::sort(ns_per_key.begin(), ns_per_key.end());
    std::printf("%-13s ns per key: min %.2f, median %.2f, max %.2f (%d passes)\n", fixed ? "fixed widths:" : "Rice:",
                ns_per_key.front(), ns_per_key[ns_per_key.size() / 2], ns_per_key.back(), passes);
  }
  // Printed so the reads of the "negated" bits are not optimised away.
  std::printf("negated bits set, over every pass: %llu\n", static_cast<unsigned long long>(sink));
  return 0;
}

}  // namespace
}  // namespace ks

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: key_layout_decode CLIP [PASSES]\n");
    return 2;
  }
  const int passes = argc == 3 ? std::atoi(argv[2]) : 15;
  if (passes < 1 || passes > 1000) {
    std::fprintf(stderr, "key_layout_decode: PASSES must be 1..1000, not '%s'\n", argv[2]);
    return 2;
  }
  return ks::run(argv[1], passes);
}
