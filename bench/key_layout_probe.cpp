// keystream-key-layout-probe: what the key stream of a clip would cost laid
// out another way, for choosing format v12's random-access layout (DESIGN
// §7, issue 41). It fits the clip as `compress` does, packs it with jump
// frames at auto, and counts, from the fitted keys, the bits of each track's
// stream keys (keys 3, 4, ...) in segments of kKeysPerSegment:
//
//   delta      format v11: each key the difference from the one before, in
//              widths fixed per segment (stream_key_layout.h); a seek needs
//              a jump frame and reads forward from it
//   anchored   the segment's first key absolute (track-wide widths), the
//              others differences as in v11: a seek starts at the anchor of
//              its segment, so the stream needs no jump frames
//   bisection  format v12's candidate (core/runtime/bisection_segment.h),
//              written by its writer: the segment's last key absolute, each
//              other key coded against the line between the two keys
//              bracketing it, the middle first: a key is reached through
//              at most four others
//   ranged     O(1): each field less the segment's least (absolute in its
//              head), in fixed widths
//   chord      O(1): the segment's last key absolute, each other key
//              against the line from the key before the segment (the
//              previous anchor) to it
//   chord2     the middle key against that line, the others against the
//              line of their half (two steps)
//   sag        O(1): the middle key against the line, the others against
//              the line bent by a parabola through the middle key
//
//   keystream-key-layout-probe CLIP[#ANIMATION] TOLERANCE_MM
//
// Bytes of all but bisection are estimates from the widths the keys need,
// bisection's are written; each counts the key data alone, next to
// the packed stream's own sections, so a layout's saving is read against the
// jump frames it makes unnecessary.
//
// Then it seeks at 4,000 random frames, checking every window against the
// fit: with the reference reader (keys decoded), with the lockstep
// kernel of bisection_lanes.h (records decoded, and time), through sag
// segments (reference and lean readers, time), and with the v11 player and
// a player whose key cache holds every key (keys read, and time, in the
// same run). The counts are in key_layouts.cpp, the seekers in
// bisection_seekers.h and sag_seeker.h.

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "bench/bisection_seekers.h"
#include "bench/key_layouts.h"
#include "bench/sag_seeker.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/measure.h"
#include "keystream/codec/pack.h"
#include "keystream/io/import.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"

namespace {

using namespace ks;

int fail(const std::string& why) {
  std::fprintf(stderr, "keystream-key-layout-probe: %s\n", why.c_str());
  return 1;
}

// Random frames (a fixed seed), as the sampling probe's seeks.
std::vector<uint32_t> random_frames(uint32_t frame_count, size_t n) {
  std::mt19937 rng(1234);
  std::uniform_int_distribution<uint32_t> frame(0, frame_count - 1);
  std::vector<uint32_t> frames(n);
  for (uint32_t& f : frames) f = frame(rng);
  return frames;
}

// Checks the bisection windows against the fitted keys at random frames,
// and counts what they decode against what the v11 player reads at the same
// frames. (Instructions and time await the player's reader: this one is a
// plain reference, a few times slower than a seek of v11.)
int count_seeks(const FittedClip& clip, const StreamView& view, const std::vector<BisectionTrack>& tracks) {
  if (tracks.empty()) {
    std::printf("\nno track has more than %u keys: nothing to seek through\n", kInitialKeysPerTrack);
    return 0;
  }
  const std::vector<uint32_t> frames = random_frames(clip.frame_count, 4000);
  std::vector<BisectionSeeker> seekers;
  for (const BisectionTrack& t : tracks) seekers.emplace_back(t);
  size_t checked = 0;
  for (size_t t = 0, streamed = 0; t < clip.tracks.size(); ++t) {
    const FittedTrack& track = clip.tracks[t];
    if (track.keys.size() <= kInitialKeysPerTrack) continue;
    BisectionSeeker& seeker = seekers[streamed++];
    for (const uint32_t frame : frames) {
      int64_t last = 0;
      for (size_t k = 0; k < track.keys.size(); ++k) {
        if (track.keys[k].frame <= frame) last = static_cast<int64_t>(k);
      }
      BisectionKey window[kWindowSize];
      seeker.window(frame, window);
      for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
        const FittedKey& key = track.keys[std::clamp<int64_t>(last - 1 + w, 0, int64_t(track.keys.size()) - 1)];
        if (window[w].frame != key.frame || !std::equal(key.codes, key.codes + 4, window[w].codes)) {
          return fail("bisection window differs from the fitted keys at frame " + std::to_string(frame));
        }
        ++checked;
      }
    }
  }
  uint64_t heads = 0, records = 0;
  for (const BisectionSeeker& seeker : seekers) heads += seeker.heads_read, records += seeker.records_read;
  // The lockstep seek at the same frames: its keys against the fit, then its counts.
  LaneSeeker lanes(tracks);
  std::vector<std::array<BisectionKey, kWindowSize>> windows(tracks.size());
  std::vector<uint32_t> found(tracks.size());
  size_t lane_checked = 0;
  for (const uint32_t frame : frames) {
    lanes.seek(frame, windows, found);
    for (size_t t = 0, streamed = 0; t < clip.tracks.size(); ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (track.keys.size() <= kInitialKeysPerTrack) continue;
      int64_t last = 0;
      for (size_t k = 0; k < track.keys.size(); ++k) {
        if (track.keys[k].frame <= frame) last = static_cast<int64_t>(k);
      }
      // A window that starts among keys 0..2 (which a player holds) is not the descent's.
      for (uint32_t w = 0; w < kWindowSize && last >= int64_t{kInitialKeysPerTrack} - 1; ++w) {
        if (((found[streamed] >> w) & 1u) == 0) continue;
        const FittedKey& key = track.keys[static_cast<size_t>(std::max<int64_t>(0, last - 1 + w))];
        if (windows[streamed][w].frame != key.frame ||
            !std::equal(key.codes, key.codes + 4, windows[streamed][w].codes)) {
          return fail("lockstep window differs from the fitted keys at frame " + std::to_string(frame));
        }
        ++lane_checked;
      }
      ++streamed;
    }
  }
  // The v11 player at the same frames: keys read and jump frames restored.
  Player player(view);
  std::vector<Transform> pose(view.bone_count());
  player.sample_frame(static_cast<float>(clip.frame_count - 1), pose);  // not at frame 0: the first seek is one too
  const PlayerCounters before = player.counters();
  for (const uint32_t frame : frames) player.sample_frame(static_cast<float>(frame), pose);
  const PlayerCounters after = player.counters();
  const double n = static_cast<double>(frames.size());
  std::printf("\nwindows of %zu streamed tracks at %zu random frames: %zu keys checked against the fit\n",
              tracks.size(), frames.size(), checked);
  std::printf(
      "| per random seek, every streamed track | bisection | v11, jump frames at auto (%.3f s) |\n|---|---|---|\n",
      view.jump_interval_frames() / view.sample_rate_hz());
  std::printf("| keys decoded | %.1f records + %.1f anchors | %.1f keys read |\n", double(records) / n,
              double(heads) / n, double(after.keys_read - before.keys_read) / n);
  std::printf("| per track | %.2f + %.2f | %.2f |\n", double(records) / n / double(tracks.size()),
              double(heads) / n / double(tracks.size()),
              double(after.keys_read - before.keys_read) / n / double(tracks.size()));
  const uint64_t lane_records = lanes.records, lane_outside = lanes.outside;  // before the timed passes add to them
  // Time, same run: the lockstep windows alone against v11's whole seek
  // (restore, read forward, rebuild, evaluate) at the same frames, each
  // the minimum of nine passes.
  const auto fastest = [&](auto&& pass) {
    double best = 1e300;
    for (int repetition = 0; repetition < 9; ++repetition) {
      const auto start = std::chrono::steady_clock::now();
      pass();
      const std::chrono::duration<double, std::nano> took = std::chrono::steady_clock::now() - start;
      best = std::min(best, took.count() / n);
    }
    return best;
  };
  const double lockstep_ns = fastest([&] {
    for (const uint32_t frame : frames) lanes.seek(frame, windows, found);
  });
  lanes.interleaved = false;
  const double one_by_one_ns = fastest([&] {
    for (const uint32_t frame : frames) lanes.seek(frame, windows, found);
  });
  lanes.interleaved = true;
  const double set_ns = fastest([&] {
    for (const uint32_t frame : frames) lanes.set_lanes(frame);
  });
  const double v11_ns = fastest([&] {
    for (const uint32_t frame : frames) player.sample_frame(static_cast<float>(frame), pose);
  });
  // Every window from a key cache that holds every key (a whole seek:
  // lanes set, evaluated), the bound a one-step layout aims at.
  Player cached(view, KeyCache::bytes_for(view));
  cached.sample_frame(static_cast<float>(clip.frame_count - 1), pose);
  const double cached_ns = fastest([&] {
    for (const uint32_t frame : frames) cached.sample_frame(static_cast<float>(frame), pose);
  });
  // Sag segments: every track's window keys, the scalar reader (keys alone:
  // no lane set, nothing evaluated), checked against the fit first.
  std::vector<SagTrack> sag_tracks(tracks.size());
  std::vector<uint8_t> sag_bytes;
  for (size_t t = 0; t < tracks.size(); ++t) {
    SagTrack& s = sag_tracks[t];
    s.coding = tracks[t].coding;
    std::copy(tracks[t].initial, tracks[t].initial + kInitialKeysPerTrack, s.initial);
    s.key_count = tracks[t].key_count;
    s.anchor_frame = tracks[t].anchor_frame;
    const uint64_t base = uint64_t{sag_bytes.size()} * 8;
    for (const uint64_t bit : tracks[t].sag_start_bit) s.start_bit.push_back(base + bit);
    sag_bytes.insert(sag_bytes.end(), tracks[t].sag_bytes.begin(), tracks[t].sag_bytes.end());
  }
  sag_bytes.resize(sag_bytes.size() + 8, 0);
  SagSeeker sag(sag_tracks, sag_bytes);
  size_t sag_checked = 0;
  for (const uint32_t frame : frames) {
    for (size_t t = 0, streamed = 0; t < clip.tracks.size(); ++t) {
      const FittedTrack& track = clip.tracks[t];
      if (track.keys.size() <= kInitialKeysPerTrack) continue;
      BisectionKey window[kWindowSize];
      sag.window(streamed++, frame, window);
      int64_t last = 0;
      for (size_t k = 0; k < track.keys.size(); ++k) {
        if (track.keys[k].frame <= frame) last = static_cast<int64_t>(k);
      }
      for (int64_t w = 0; w < int64_t{kWindowSize}; ++w) {
        const FittedKey& key = track.keys[std::clamp<int64_t>(last - 1 + w, 0, int64_t(track.keys.size()) - 1)];
        if (window[w].frame != key.frame || !std::equal(key.codes, key.codes + 4, window[w].codes)) {
          return fail("sag window differs from the fitted keys at frame " + std::to_string(frame));
        }
        ++sag_checked;
      }
    }
  }
  SagLeanSeeker lean(sag_tracks, sag_bytes);
  for (const uint32_t frame : frames) {
    for (size_t t = 0; t < sag_tracks.size(); ++t) {
      BisectionKey a[kWindowSize], b[kWindowSize];
      sag.window(t, frame, a);
      lean.window(t, frame, b);
      for (uint32_t w = 0; w < kWindowSize; ++w) {
        if (a[w].frame != b[w].frame || !std::equal(a[w].codes, a[w].codes + 4, b[w].codes)) {
          return fail("lean sag window differs at frame " + std::to_string(frame) + ", track " + std::to_string(t));
        }
      }
    }
  }
  const double lean_ns = fastest([&] {
    BisectionKey window[kWindowSize];
    for (const uint32_t frame : frames) {
      for (size_t t = 0; t < sag_tracks.size(); ++t) lean.window(t, frame, window);
      asm volatile("" : : "r"(window) : "memory");
    }
  });
  const double sag_ns = fastest([&] {
    BisectionKey window[kWindowSize];
    for (const uint32_t frame : frames) {
      for (size_t t = 0; t < sag_tracks.size(); ++t) sag.window(t, frame, window);
      asm volatile("" : : "r"(window) : "memory");
    }
  });
  std::printf(
      "\nlockstep seek (%s kernels): %zu window keys checked; %.1f records decoded per seek, %.2f a track;"
      " window keys in a neighbouring segment %.2f a track (not decoded)\n",
      to_string(simd_level()), lane_checked, double(lane_records) / n, double(lane_records) / n / double(tracks.size()),
      double(lane_outside) / n / double(tracks.size()));
  std::printf(
      "ns per seek (min of 9): lockstep windows %.0f (blocks one by one: %.0f), of which setting the lanes"
      " %.0f; v11 whole seek %.0f\n",
      lockstep_ns, one_by_one_ns, set_ns, v11_ns);
  std::printf(
      "sag windows (scalar reader, %zu keys checked): %.0f ns per seek, lean reader %.0f; whole seek from a"
      " full key cache %.0f (%.3f of v11's)\n",
      sag_checked, sag_ns, lean_ns, cached_ns, cached_ns / v11_ns);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) return fail("usage: keystream-key-layout-probe CLIP[#ANIMATION] TOLERANCE_MM");
  std::string path = argv[1];
  ImportSettings import_settings;
  if (const size_t hash = path.find('#'); hash != std::string::npos) {
    import_settings.animation_name = path.substr(hash + 1);
    path.resize(hash);
  }
  char* end = nullptr;
  const double tolerance_mm = std::strtod(argv[2], &end);
  if (end == argv[2] || *end != '\0' || !(tolerance_mm > 0.0) || tolerance_mm > 1e6) {
    return fail(std::string("tolerance '") + argv[2] + "' is not a positive number of millimetres");
  }
  Result<ImportedClip> imported = import_clip(path, import_settings);
  if (!imported) return fail(imported.error());
  FitSettings fit_settings;
  fit_settings.tolerance_m = static_cast<float>(tolerance_mm * 1e-3);
  Result<FittedClip> fitted = fit_clip(imported.value().skeleton, imported.value().clip, fit_settings, 2);
  if (!fitted) return fail(fitted.error());
  Result<std::vector<uint8_t>> bytes = pack(fitted.value(), tool_pack_settings());
  if (!bytes) return fail(bytes.error());
  Result<StreamView> view = StreamView::open(bytes.value(), path.c_str());
  if (!view) return fail(view.error());
  const StreamSizes sizes = stream_sizes(view.value());

  LayoutBits total;
  std::vector<BisectionTrack> laid_out;
  for (const FittedTrack& track : fitted.value().tracks) {
    BisectionTrack bisection_track;
    const LayoutBits t = track_bits(track, fitted.value().frame_count, bisection_track);
    if (bisection_track.key_count > 0) laid_out.push_back(std::move(bisection_track));
    total.delta += t.delta;
    total.anchored += t.anchored;
    total.bisection += t.bisection;
    total.ranged += t.ranged;
    total.chord += t.chord;
    total.chord2 += t.chord2;
    total.sag += t.sag;
    total.sag_written += t.sag_written;
    total.sag_masked += t.sag_masked;
  }
  const auto bytes_of = [](uint64_t bits) { return static_cast<long long>((bits + 7) / 8); };
  const long long stream = static_cast<long long>(sizes.bytes_without_metadata());
  const long long jump = static_cast<long long>(sizes.jump_frame_bytes);
  const long long delta = bytes_of(total.delta);
  // The stream as it would be: the same but for the stream keys' layout,
  // and without jump frames where the layout has anchors.
  const auto projected = [&](uint64_t bits) { return stream - jump - delta + bytes_of(bits); };
  std::printf("%s at %g mm: stream less metadata %lld bytes, jump frames %lld\n", argv[1], tolerance_mm, stream, jump);
  std::printf("| layout | stream keys, bytes | stream less metadata | / v11 |\n|---|---|---|---|\n");
  // The estimate against the packed stream's key widths and stream keys.
  const long long packed = static_cast<long long>(view.value().key_widths().size() + view.value().key_stream_bytes());
  std::printf("| delta + jump frames (v11; as packed: %lld) | %lld | %lld | 1.000 |\n", packed, delta, stream);
  const std::pair<const char*, uint64_t> rows[] = {{"anchored", total.anchored},
                                                   {"bisection", total.bisection},
                                                   {"ranged", total.ranged},
                                                   {"chord", total.chord},
                                                   {"chord2", total.chord2},
                                                   {"sag", total.sag},
                                                   {"sag (written)", total.sag_written},
                                                   {"sag, frames as a mask", total.sag_masked}};
  for (const auto& [name, bits] : rows) {
    std::printf("| %s | %lld | %lld | %.3f |\n", name, bytes_of(bits), projected(bits),
                double(projected(bits)) / double(stream));
  }
  return count_seeks(fitted.value(), view.value(), laid_out);
}
