#include "keystream/io/gltf_sample_rate.h"

#include <algorithm>
#include <cmath>

#include "keystream/clip/raw_clip.h"

namespace ks::gltf {

namespace {

constexpr double kFallbackRateHz = 30.0;
// Rates animation is made and captured at; their multiples are tried too.
constexpr double kCommonRatesHz[] = {24.0, 25.0, 30.0, 24000.0 / 1001.0, 30000.0 / 1001.0};
// A rate found by landing keys goes no higher: mocap's fastest common rate.
// Past it, frames multiply for keys whose times are more likely arbitrary
// (any key time lands at 10 kHz, with 300 frames for each of 30 Hz).
constexpr double kMaxLandingRateHz = 240.0;

// How far float rounding may have moved a time of `s` seconds.
double float_ulp(double s) {
  const float f = static_cast<float>(std::fabs(s));
  return static_cast<double>(std::nextafter(f, INFINITY)) - f;
}

// The keys' own rate when every key time of every channel lies on one
// uniform grid starting at `start_s`; otherwise 0.
double uniform_key_rate(const std::vector<Channel>& channels, double start_s, double end_s) {
  // The smallest gap between keys, and how far float rounding of the two key
  // times may have moved it (late in a long clip, a few microseconds).
  double smallest_gap = 0.0, gap_error = 0.0;
  for (const Channel& channel : channels) {
    for (size_t k = 1; k < channel.times.size(); ++k) {
      const double gap = static_cast<double>(channel.times[k]) - channel.times[k - 1];
      if (gap > 1e-6 && (smallest_gap == 0.0 || gap < smallest_gap)) {
        smallest_gap = gap;
        gap_error = 2.0 * float_ulp(channel.times[k]);
      }
    }
  }
  const double span = end_s - start_s;
  if (smallest_gap == 0.0 || span <= 0.0) return 0.0;
  // The span is a whole number of steps; it pins the step more precisely
  // than a single float difference does. Every count of steps the measured
  // gap allows is tried, fewest first (more steps would also fit the keys).
  const double fewest = std::max(1.0, std::floor(span / (smallest_gap + gap_error)));
  const double most = std::ceil(span / std::max(smallest_gap - gap_error, 1e-9));
  for (double steps = fewest; steps <= most && steps <= fewest + 64.0; ++steps) {
    double rate = steps / span;
    const bool on_grid = std::all_of(channels.begin(), channels.end(), [&](const Channel& channel) {
      return std::all_of(channel.times.begin(), channel.times.end(),
                         [&](float t) { return on_frame(t, start_s, rate); });
    });
    if (!on_grid) continue;
    // Float key times put 24 Hz at 23.99999; report the rate people expect.
    if (std::fabs(rate - std::round(rate)) < 1e-3 * rate) rate = std::round(rate);
    return rate;
  }
  return 0.0;
}

// Every distinct key time of the channels, ascending.
std::vector<float> key_times(const std::vector<Channel>& channels) {
  std::vector<float> times;
  for (const Channel& channel : channels) times.insert(times.end(), channel.times.begin(), channel.times.end());
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

// The rates step 3 tries, ascending: common rates, the smallest gap's rate
// (rounded where it is within float noise of a whole number), and their
// whole multiples, within kMinSampleRateHz..kMaxLandingRateHz.
std::vector<double> landing_candidates(const std::vector<float>& times) {
  std::vector<double> bases(std::begin(kCommonRatesHz), std::end(kCommonRatesHz));
  double smallest_gap = 0.0;
  for (size_t k = 1; k < times.size(); ++k) {
    const double gap = static_cast<double>(times[k]) - times[k - 1];
    if (gap > 1e-6 && (smallest_gap == 0.0 || gap < smallest_gap)) smallest_gap = gap;
  }
  if (smallest_gap > 0.0) {
    double rate = 1.0 / smallest_gap;
    if (std::fabs(rate - std::round(rate)) < 1e-3 * rate) rate = std::round(rate);
    if (rate <= kMaxLandingRateHz) bases.push_back(rate);
  }
  std::vector<double> rates;
  for (const double base : bases) {
    for (double rate = base; rate <= kMaxLandingRateHz * (1.0 + 1e-9); rate += base) {
      if (rate >= kMinSampleRateHz) rates.push_back(rate);
    }
  }
  std::sort(rates.begin(), rates.end());
  rates.erase(std::unique(rates.begin(), rates.end(), [](double a, double b) { return std::fabs(a - b) < 1e-9 * b; }),
              rates.end());
  return rates;
}

// Steps 3 and 4 of resampling_rate.
double landing_rate(const std::vector<Channel>& channels, double start_s, double end_s, uint64_t bone_count,
                    const ImportSettings& settings) {
  const std::vector<float> times = key_times(channels);
  const auto landed = [&](double rate) {
    return static_cast<size_t>(
        std::count_if(times.begin(), times.end(), [&](float t) { return on_frame(t, start_s, rate); }));
  };
  double best = kFallbackRateHz;
  size_t best_landed = landed(kFallbackRateHz);
  const auto too_big = [&](double frames) {
    return frames * static_cast<double>(bone_count) > static_cast<double>(settings.max_bone_frames);
  };
  for (const double rate : landing_candidates(times)) {
    const double frames = frame_count_at(end_s - start_s, rate);
    // Ascending: past the limits, every further rate is refused too.
    if (frames > kMaxFrameCount || too_big(frames)) break;
    const size_t n = landed(rate);
    // The keys a rate misses are measured as poses of their own (an upper
    // bound: STEP keys are not).
    if (too_big(frames + static_cast<double>(times.size() - n))) continue;
    if (n == times.size()) return rate;
    if (n > best_landed) {
      best = rate;
      best_landed = n;
    }
  }
  // A rate that lands a few arbitrary key times by chance is not worth its
  // frames; the keys it misses are checked as key poses either way.
  return 2 * best_landed >= times.size() ? best : kFallbackRateHz;
}

}  // namespace

double on_frame_slack_s(double t_s, double start_s, double rate_hz) {
  return 1e-3 / rate_hz + float_ulp(t_s) + float_ulp(start_s);
}

bool on_frame(double t_s, double start_s, double rate_hz) {
  const double position = (t_s - start_s) * rate_hz;
  return std::fabs(position - std::round(position)) <= rate_hz * on_frame_slack_s(t_s, start_s, rate_hz);
}

double frame_count_at(double duration_s, double rate_hz) {
  return std::ceil(duration_s * rate_hz - 0.01) + 1.0;
}

double resampling_rate(const std::vector<Channel>& channels, double start_s, double end_s, uint64_t bone_count,
                       const ImportSettings& settings) {
  if (settings.sample_rate_hz > 0.f) return settings.sample_rate_hz;
  double rate = uniform_key_rate(channels, start_s, end_s);
  // Keys further apart than a second still land on frames at a whole
  // multiple of their rate; keys closer than the fastest rate cannot.
  if (rate > 0.0 && rate < kMinSampleRateHz) rate *= std::ceil(kMinSampleRateHz / rate - 1e-9);
  if (rate <= 0.0 || rate > kMaxSampleRateHz) rate = landing_rate(channels, start_s, end_s, bone_count, settings);
  // Between its keys a LINEAR channel is what the frames at its keys
  // interpolate; a STEP jump or a CUBICSPLINE bulge needs frames of its own.
  const bool all_linear = std::all_of(channels.begin(), channels.end(),
                                      [](const Channel& c) { return c.interpolation == Interpolation::kLinear; });
  if (all_linear || rate >= kFallbackRateHz) return rate;
  return rate * std::ceil(kFallbackRateHz / rate - 1e-9);
}

}  // namespace ks::gltf
