#include "bench/sampling_benchmarks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>

#include "keystream/codec/binary_search_sampler.h"
#include "keystream/codec/fit.h"
#include "keystream/codec/pack.h"
#include "keystream/runtime/player.h"
#include "keystream/runtime/stream_view.h"

namespace ks::bench {

Status TimingSettings::validate() const {
  if (jump_intervals_s.empty()) return Error{"timing settings: no jump interval to seek with"};
  for (const float j : jump_intervals_s) {
    if (!(j > 0.f) || !std::isfinite(j)) return Error{"timing settings: jump interval must be a positive number of seconds"};
  }
  if (!(game_rate_hz > 0.f) || !std::isfinite(game_rate_hz)) return Error{"timing settings: game rate must be positive"};
  if (cold_working_set_bytes < (size_t{1} << 20)) return Error{"timing settings: cold working set under 1 MiB"};
  if (max_cold_copies < 2) return Error{"timing settings: a cold row needs at least 2 copies"};
  if (run.repetitions < 1) return Error{"timing settings: repetitions must be at least 1"};
  if (!(run.min_time_s > 0.0) || !std::isfinite(run.min_time_s)) return Error{"timing settings: min time must be positive"};
  return {};
}

const char* to_string(CacheState state) { return state == CacheState::kWarm ? "warm" : "cold"; }

namespace {

constexpr size_t kSeekTimeCount = 4096;  // random frame times cycled through by the seek rows
constexpr uint32_t kSeekSeed = 42;

/// Copies of one packed stream, each with its own view and player: one for
/// a warm row, many for a cold one (the bytes, tables and active arrays of
/// each copy are separate allocations, so nothing a copy touches is in the
/// cache from the previous sample).
class PlayerCopies {
 public:
  static Result<std::unique_ptr<PlayerCopies>> make(const std::vector<uint8_t>& bytes, size_t copies,
                                                    const std::string& name) {
    auto set = std::unique_ptr<PlayerCopies>(new PlayerCopies());
    set->m_copies.resize(copies);
    for (Copy& c : set->m_copies) {
      c.bytes = bytes;
      Result<StreamView> view = StreamView::open(c.bytes, name.c_str());
      if (!view.ok()) return Error{view.error()};
      c.view = std::make_unique<StreamView>(std::move(view.value()));
      c.player = std::make_unique<Player>(*c.view);
    }
    return set;
  }
  size_t size() const { return m_copies.size(); }
  Player& operator[](size_t i) { return *m_copies[i].player; }

 private:
  struct Copy {
    std::vector<uint8_t> bytes;
    std::unique_ptr<StreamView> view;  // borrows `bytes`
    std::unique_ptr<Player> player;    // borrows `view`
  };
  PlayerCopies() = default;
  std::vector<Copy> m_copies;
};

/// One packed stream of a clip.
struct Pack {
  std::vector<uint8_t> bytes;
  uint32_t jump_interval_frames = 0;
  size_t jump_frame_bytes = 0;
  size_t player_bytes = 0;   // a Player's own memory for this stream (a zstd player's includes its context)
  size_t key_cache_bytes = 0;  // of those, its key cache
  size_t touched_bytes = 0;  // what sampling reads: the stream and the player
};

/// What the cases of one clip share. Cold copies are built on a case's
/// first run and kept until a case needs different ones (Google Benchmark
/// runs a case's repetitions one after another, and the cases in order), so
/// one set of copies is alive at a time.
struct ClipBench {
  std::string name;
  const ImportedClip* imported = nullptr;
  FittedClip fitted;
  std::vector<Pack> packs;  // plain per jump interval, then the default (auto) and its zstd twin
  size_t default_pack = 0;
  size_t zstd_pack = 0;
  std::vector<float> sequential_times;  // one loop at the clip's rate, frame times
  std::vector<float> game_rate_times;   // one loop at the game rate
  std::vector<float> seek_times;        // random frame times, fixed seed
  uint32_t scalar_values = 0;           // floats of the scalar tracks' values per pose (0: bones only)

  std::string cold_owner;  // "player N" (copies of pack N) or "baseline": cases of one owner share copies
  std::unique_ptr<PlayerCopies> cold_players;
  /// The next sample of the cold copies: Google Benchmark calls a body many
  /// times, and a cold sequential row must carry on where it stopped rather
  /// than send every copy back to frame 0 (a restart each) on every call.
  size_t cold_next_sample = 0;
  std::vector<BinarySearchSampler> cold_baselines;
};

// Copies so that what the samples touch spans the cold working set. A zstd
// player also owns a decompression context (~100 KiB) it barely touches per
// sample, so copies are counted by the bytes sampling reads, not by all a
// copy owns; the total a cold row allocates is capped (kMaxColdAllocation).
constexpr size_t kMaxColdAllocation = size_t{1} << 30;

size_t cold_copy_count(const TimingSettings& s, size_t touched_bytes, size_t owned_bytes) {
  const size_t wanted = s.cold_working_set_bytes / std::max<size_t>(touched_bytes, 1);
  const size_t affordable = kMaxColdAllocation / std::max<size_t>(owned_bytes, 1);
  return std::clamp<size_t>(std::min(wanted, affordable), 2, s.max_cold_copies);
}

// Frame times of one loop played at `rate_hz`, through the Player's own
// looping time mapping (the last frame wraps onto frame 0).
std::vector<float> loop_times(const StreamView& view, float rate_hz) {
  Player looping(view);
  looping.set_looping(true);
  const double loop_s = static_cast<double>(std::max<uint32_t>(1, view.frame_count() - 1)) / view.sample_rate_hz();
  const size_t steps = std::max<size_t>(1, static_cast<size_t>(std::ceil(loop_s * rate_hz - 1e-6)));
  std::vector<float> times;
  times.reserve(steps);
  for (size_t i = 0; i < steps; ++i) {
    times.push_back(looping.frame_time_at(static_cast<float>(static_cast<double>(i) / rate_hz)));
  }
  return times;
}

Result<std::unique_ptr<ClipBench>> prepare(const TimedClip& clip, const TimingSettings& settings) {
  auto bench = std::make_unique<ClipBench>();
  bench->name = clip.name;
  bench->imported = clip.imported;
  Result<FittedClip> fitted = fit_clip(clip.imported->skeleton, clip.imported->clip, FitSettings{}, 2);
  if (!fitted.ok()) return Error{fitted.error()};
  bench->fitted = std::move(fitted.value());
  for (const FittedScalar& scalar : bench->fitted.scalars) bench->scalar_values += scalar.components;
  auto add_pack = [&](float jump_s, bool automatic, bool zstd) -> Status {
    PackSettings ps;
    ps.jump_interval_s = jump_s;
    ps.auto_jump_interval = automatic;
    ps.zstd = zstd;
    ps.source_name = clip.imported->source.filename().string();  // as compress and the sweep pack it
    Result<std::vector<uint8_t>> bytes = pack(bench->fitted, ps);
    if (!bytes.ok()) return Error{bytes.error()};
    Pack p;
    p.bytes = std::move(bytes.value());
    Result<StreamView> view = StreamView::open(p.bytes, clip.name.c_str());
    if (!view.ok()) return Error{view.error()};
    const Player player(view.value());
    p.player_bytes = player.memory_bytes();
    p.key_cache_bytes = player.key_cache_bytes();
    p.touched_bytes = p.bytes.size() + player.memory_bytes();
    p.jump_interval_frames = view.value().jump_interval_frames();
    p.jump_frame_bytes = view.value().jump_frame_bytes();
    bench->packs.push_back(std::move(p));
    return {};
  };
  for (const float j : settings.jump_intervals_s) {
    if (Status s = add_pack(j, false, false); !s) return Error{s.error()};
  }
  // The default stream, as `keystream compress` packs it, and its zstd twin.
  bench->default_pack = bench->packs.size();
  if (Status s = add_pack(0.f, true, false); !s) return Error{s.error()};
  bench->zstd_pack = bench->packs.size();
  if (Status s = add_pack(0.f, true, true); !s) return Error{s.error()};
  Result<StreamView> view = StreamView::open(bench->packs.front().bytes, clip.name.c_str());
  if (!view.ok()) return Error{view.error()};
  bench->sequential_times = loop_times(view.value(), view.value().sample_rate_hz());
  bench->game_rate_times = loop_times(view.value(), settings.game_rate_hz);
  // mt19937's output is fixed by the standard; the distributions are not.
  std::mt19937 random(kSeekSeed);
  const float last = static_cast<float>(bench->fitted.frame_count - 1);
  for (size_t i = 0; i < kSeekTimeCount; ++i) {
    bench->seek_times.push_back(static_cast<float>(random() >> 8) * 0x1p-24f * last);
  }
  return bench;
}

// Counters every sampling case reports per pose.
void set_pose_counters(benchmark::State& state, double keys_read, size_t poses, size_t copies) {
  state.counters["keys_per_pose"] = poses > 0 ? keys_read / static_cast<double>(poses) : 0.0;
  state.counters["copies"] = static_cast<double>(copies);
}

// Sample g plays copy g % copies. Sequential rows walk each copy through
// `times` in order (round g / copies is its step); seek rows give each copy
// its own walk through the random times, starting at an offset of 997 per
// copy (997 is prime to the 4096 times), so no copy repeats one time while
// the others move on.
inline size_t time_index(size_t g, size_t copies, size_t n, bool sequential) {
  const size_t round = g / copies;
  return sequential ? round % n : (round + (g % copies) * 997) % n;
}

// The timed loop of every sampling case: sample g plays copy g % k at its
// time, carrying on from `next`; then the keys read per pose, counted apart.
// `Copies` holds Players or BinarySearchSamplers, which count keys the same
// way. kParts says what a sample writes: the pose, the pose and `values`,
// or `values` alone (Player::sample_frame_scalars). Not inlined: a
// bone-only clip's loop stays the code it was before scalar tracks.
enum class SampledParts : uint8_t { kBones, kBonesAndScalars, kScalars };

template <SampledParts kParts, class Copies>
[[gnu::noinline]] void sample_copies(benchmark::State& state, Copies& copies, size_t bones, std::span<float> values,
                                     const std::vector<float>& times, bool sequential, size_t& next) {
  const size_t k = copies.size();
  std::vector<Transform> pose(bones);
  const size_t n = times.size();
  size_t g = next;
  for (auto _ : state) {
    if constexpr (kParts == SampledParts::kBonesAndScalars) {
      copies[g % k].sample_frame(times[time_index(g, k, n, sequential)], pose, values);
    } else if constexpr (kParts == SampledParts::kScalars) {
      copies[g % k].sample_frame_scalars(times[time_index(g, k, n, sequential)], values);
    } else {
      copies[g % k].sample_frame(times[time_index(g, k, n, sequential)], pose);
    }
    ++g;
    if constexpr (kParts != SampledParts::kScalars) benchmark::DoNotOptimize(pose.data());
    if constexpr (kParts != SampledParts::kBones) benchmark::DoNotOptimize(values.data());
    benchmark::ClobberMemory();
  }
  next = g;
  // Keys per pose from untimed passes over the times on the first copy,
  // counting the second (the steady state: it starts where a loop ends).
  // The timed loop's own count depends on how many iterations the timer
  // ran, as each copy's first sample reads a whole state.
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) copies[0].reset_counters();
    for (size_t i = 0; i < n; ++i) {
      if constexpr (kParts == SampledParts::kBonesAndScalars) {
        copies[0].sample_frame(times[time_index(i, 1, n, sequential)], pose, values);
      } else if constexpr (kParts == SampledParts::kScalars) {
        copies[0].sample_frame_scalars(times[time_index(i, 1, n, sequential)], values);
      } else {
        copies[0].sample_frame(times[time_index(i, 1, n, sequential)], pose);
      }
    }
  }
  set_pose_counters(state, static_cast<double>(copies[0].counters().keys_read), n, k);
}

// sample_copies of `parts`.
template <class Copies>
void sample_copies(benchmark::State& state, Copies& copies, const ClipBench& bench, SampledParts parts,
                   const std::vector<float>& times, bool sequential, size_t& next) {
  const size_t bones = bench.fitted.parents.size();
  if (parts == SampledParts::kBones) {
    return sample_copies<SampledParts::kBones>(state, copies, bones, {}, times, sequential, next);
  }
  std::vector<float> values(bench.scalar_values);
  if (parts == SampledParts::kScalars) {
    return sample_copies<SampledParts::kScalars>(state, copies, bones, values, times, sequential, next);
  }
  sample_copies<SampledParts::kBonesAndScalars>(state, copies, bones, values, times, sequential, next);
}

void time_player(benchmark::State& state, ClipBench& bench, size_t pack, const std::vector<float>& times,
                 bool sequential, CacheState cache, SampledParts parts, const TimingSettings& settings) {
  const Pack& p = bench.packs[pack];
  if (cache == CacheState::kWarm) {
    Result<std::unique_ptr<PlayerCopies>> warm = PlayerCopies::make(p.bytes, 1, bench.name);
    if (!warm.ok()) return state.SkipWithError(warm.error().c_str());
    size_t next = 0;
    return sample_copies(state, *warm.value(), bench, parts, times, sequential, next);
  }
  const std::string owner = "player " + std::to_string(pack);
  if (bench.cold_owner != owner || !bench.cold_players) {
    bench.cold_players.reset();
    bench.cold_baselines.clear();
    const size_t k = cold_copy_count(settings, p.touched_bytes, p.bytes.size() + p.player_bytes);
    Result<std::unique_ptr<PlayerCopies>> made = PlayerCopies::make(p.bytes, k, bench.name);
    if (!made.ok()) return state.SkipWithError(made.error().c_str());
    bench.cold_players = std::move(made.value());
    bench.cold_owner = owner;
    bench.cold_next_sample = 0;
  }
  sample_copies(state, *bench.cold_players, bench, parts, times, sequential, bench.cold_next_sample);
}

void time_baseline(benchmark::State& state, ClipBench& bench, const std::vector<float>& times, bool sequential,
                   CacheState cache, SampledParts parts, const TimingSettings& settings) {
  if (cache == CacheState::kWarm) {
    std::vector<BinarySearchSampler> warm;
    warm.emplace_back(bench.fitted);
    size_t next = 0;
    return sample_copies(state, warm, bench, parts, times, sequential, next);
  }
  if (bench.cold_owner != "baseline" || bench.cold_baselines.empty()) {
    bench.cold_players.reset();
    bench.cold_baselines.clear();
    const BinarySearchSampler one(bench.fitted);
    bench.cold_baselines.assign(cold_copy_count(settings, one.memory_bytes(), one.memory_bytes()), one);
    bench.cold_owner = "baseline";
    bench.cold_next_sample = 0;
  }
  sample_copies(state, bench.cold_baselines, bench, parts, times, sequential, bench.cold_next_sample);
}

// One fit and pack on one thread, in `mode` with its default settings.
void time_fit(benchmark::State& state, const ClipBench& bench, ErrorMode mode) {
  const ImportedClip& source = *bench.imported;
  FitSettings settings;
  settings.error_mode = mode;
  for (auto _ : state) {
    Result<FittedClip> fitted = fit_clip(source.skeleton, source.clip, settings, 1);
    if (!fitted.ok()) return state.SkipWithError(fitted.error().c_str());
    Result<std::vector<uint8_t>> bytes = pack(fitted.value(), {});
    if (!bytes.ok()) return state.SkipWithError(bytes.error().c_str());
    benchmark::DoNotOptimize(bytes.value().data());
  }
}

std::string format_seconds(float s) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", static_cast<double>(s));
  return text;
}

/// A row and the cases it is made of, by index into the case list.
struct PlannedRow {
  size_t clip = 0;
  SamplingRow row;
  size_t player_case = 0;
  size_t baseline_case = 0;
};

}  // namespace

std::vector<ClipTimings> time_clips(std::span<const TimedClip> clips, const TimingSettings& settings,
                                    std::ostream* log, std::ostream* progress) {
  std::vector<ClipTimings> out(clips.size());
  std::vector<std::unique_ptr<ClipBench>> benches(clips.size());
  std::vector<TimedCase> cases;
  std::vector<PlannedRow> planned;
  std::vector<size_t> fit_case(clips.size(), SIZE_MAX);
  std::vector<size_t> open_case(clips.size(), SIZE_MAX);
  if (Status s = settings.validate(); !s) {
    for (size_t c = 0; c < clips.size(); ++c) out[c].error = s.error();
    return out;
  }
  for (size_t c = 0; c < clips.size(); ++c) {
    ClipTimings& t = out[c];
    t.name = clips[c].name;
    Result<std::unique_ptr<ClipBench>> prepared = prepare(clips[c], settings);
    if (!prepared.ok()) {
      t.error = prepared.error();
      continue;
    }
    ClipBench* b = prepared.value().get();
    benches[c] = std::move(prepared.value());
    t.bones = static_cast<uint32_t>(b->fitted.parents.size());
    t.frames = b->fitted.frame_count;
    t.sample_rate_hz = b->fitted.sample_rate_hz;
    t.keys = b->fitted.key_count();
    t.animated_tracks = static_cast<uint32_t>(std::count_if(
        b->fitted.tracks.begin(), b->fitted.tracks.end(),
        [](const FittedTrack& track) { return track.coding == TrackCoding::kAnimated; }));
    t.scalar_tracks = static_cast<uint32_t>(b->fitted.scalars.size());
    t.scalar_values = b->scalar_values;
    // A clip with scalar tracks samples them in every row, as an engine
    // playing its curves would, and again without them in the bones-only rows.
    const bool scalars = b->scalar_values > 0;
    const SampledParts all = scalars ? SampledParts::kBonesAndScalars : SampledParts::kBones;

    const size_t jumps = settings.jump_intervals_s.size();
    const size_t sequential_pack = b->default_pack;
    const size_t zstd_pack = b->zstd_pack;
    const std::string prefix = b->name + "/";
    const Pack& chosen = b->packs[sequential_pack];
    t.auto_jump_interval_frames = chosen.jump_interval_frames;
    t.auto_jump_frame_bytes = chosen.jump_frame_bytes;
    t.default_stream_bytes = chosen.bytes.size();
    t.default_player_bytes = chosen.player_bytes;
    t.default_key_cache_bytes = chosen.key_cache_bytes;
    open_case[c] = cases.size();
    for (const StreamCheck check : {StreamCheck::kFast, StreamCheck::kFull}) {
      cases.push_back({prefix + (check == StreamCheck::kFast ? "open" : "open_full"), [b, check](benchmark::State& s) {
                         const Pack& p = b->packs[b->default_pack];
                         for (auto _ : s) {
                           Result<StreamView> view = StreamView::open(p.bytes, "bench", check);
                           if (!view.ok()) return s.SkipWithError(view.error().c_str());
                           benchmark::DoNotOptimize(view.value().tracks().data());
                         }
                       }});
    }
    for (const CacheState cache : {CacheState::kWarm, CacheState::kCold}) {
      const std::string suffix = std::string("/") + to_string(cache);
      auto add_case = [&](const std::string& name, std::function<void(benchmark::State&)> body) {
        cases.push_back({prefix + name + suffix, std::move(body)});
        return cases.size() - 1;
      };
      auto player_case = [&](const std::string& name, size_t pack_index, const std::vector<float>* times,
                             bool sequential, SampledParts parts) {
        return add_case(name, [b, pack_index, times, sequential, cache, parts, &settings](benchmark::State& s) {
          time_player(s, *b, pack_index, *times, sequential, cache, parts, settings);
        });
      };
      auto baseline_case = [&](const std::string& name, const std::vector<float>* times, bool sequential,
                               SampledParts parts) {
        return add_case(name, [b, times, sequential, cache, parts, &settings](benchmark::State& s) {
          time_baseline(s, *b, *times, sequential, cache, parts, settings);
        });
      };
      auto plan = [&](const std::string& measure, size_t pack_index, size_t player, size_t baseline,
                      SampledParts parts) {
        PlannedRow p;
        p.clip = c;
        p.row.measure = measure;
        p.row.cache = cache;
        p.row.scalars = parts != SampledParts::kBones;
        p.row.curves_only = parts == SampledParts::kScalars;
        p.row.stream_bytes = b->packs[pack_index].bytes.size();
        p.player_case = player;
        p.baseline_case = baseline;
        planned.push_back(std::move(p));
      };
      const std::string clip_rate = "sequential at the clip's " + format_seconds(b->fitted.sample_rate_hz) + " Hz";
      const std::string game_rate = "sequential at " + format_seconds(settings.game_rate_hz) + " Hz";
      const std::string auto_j =
          "auto (" + (chosen.jump_interval_frames == 0
                          ? std::string("none")
                          : format_seconds(static_cast<float>(chosen.jump_interval_frames) / b->fitted.sample_rate_hz) +
                                " s") +
          ")";
      const size_t base_clip = baseline_case("baseline/sequential", &b->sequential_times, true, all);
      const size_t base_game = baseline_case("baseline/game_rate", &b->game_rate_times, true, all);
      const size_t base_seek = baseline_case("baseline/random", &b->seek_times, false, all);
      plan(clip_rate, sequential_pack, player_case("player/sequential", sequential_pack, &b->sequential_times, true, all),
           base_clip, all);
      plan(game_rate, sequential_pack, player_case("player/game_rate", sequential_pack, &b->game_rate_times, true, all),
           base_game, all);
      plan(clip_rate + ", zstd", zstd_pack,
           player_case("player/sequential_zstd", zstd_pack, &b->sequential_times, true, all), base_clip, all);
      for (size_t j = 0; j < jumps; ++j) {
        const std::string js = format_seconds(settings.jump_intervals_s[j]);
        plan("seek, J = " + js + " s", j, player_case("player/seek_J" + js + "s", j, &b->seek_times, false, all),
             base_seek, all);
      }
      plan("seek, J = " + auto_j, sequential_pack,
           player_case("player/seek_auto", sequential_pack, &b->seek_times, false, all), base_seek, all);
      plan("seek, zstd, J = " + auto_j, zstd_pack,
           player_case("player/seek_zstd_auto", zstd_pack, &b->seek_times, false, all), base_seek, all);
      if (scalars) {
        // The same stream without reading the curves out, and the curves
        // without the bones: what each costs.
        for (const SampledParts parts : {SampledParts::kBones, SampledParts::kScalars}) {
          const bool bones = parts == SampledParts::kBones;
          const std::string only = std::string(", ") + (bones ? kBonesOnly : kCurvesOnly);
          const std::string tag = bones ? "_bones_only" : "_curves_only";
          plan(clip_rate + only, sequential_pack,
               player_case("player/sequential" + tag, sequential_pack, &b->sequential_times, true, parts),
               baseline_case("baseline/sequential" + tag, &b->sequential_times, true, parts), parts);
          plan("seek, J = " + auto_j + only, sequential_pack,
               player_case("player/seek_auto" + tag, sequential_pack, &b->seek_times, false, parts),
               baseline_case("baseline/random" + tag, &b->seek_times, false, parts), parts);
        }
      }
    }
    cases.push_back({prefix + "fit", [b](benchmark::State& s) { time_fit(s, *b, ErrorMode::kObjectSpace); }});
    fit_case[c] = cases.size() - 1;
    cases.push_back({prefix + "fit_local", [b](benchmark::State& s) { time_fit(s, *b, ErrorMode::kLocal); }});
  }

  const std::vector<CaseResult> results = run_cases(cases, settings.run, log, progress);
  for (const PlannedRow& p : planned) {
    SamplingRow row = p.row;
    const CaseResult& player = results[p.player_case];
    const CaseResult& baseline = results[p.baseline_case];
    row.player_s = player.seconds;
    row.baseline_s = baseline.seconds;
    auto counter = [](const CaseResult& r, const char* name) {
      const auto it = r.counters.find(name);
      return it == r.counters.end() ? 0.0 : it->second;
    };
    row.player_keys_per_pose = counter(player, "keys_per_pose");
    row.baseline_keys_per_pose = counter(baseline, "keys_per_pose");
    row.copies = static_cast<size_t>(counter(player, "copies"));
    row.error = !player.error.empty() ? player.error : baseline.error;
    out[p.clip].rows.push_back(std::move(row));
  }
  for (size_t c = 0; c < clips.size(); ++c) {
    if (open_case[c] != SIZE_MAX) {
      out[c].open_s = results[open_case[c]].seconds;
      out[c].open_full_s = results[open_case[c] + 1].seconds;
    }
    if (fit_case[c] == SIZE_MAX) continue;
    out[c].fit_s = results[fit_case[c]].seconds;
    out[c].local_fit_s = results[fit_case[c] + 1].seconds;  // pushed right after
    for (size_t i : {fit_case[c], fit_case[c] + 1}) {
      if (!results[i].error.empty()) out[c].error = results[i].error;
    }
  }
  return out;
}

}  // namespace ks::bench
