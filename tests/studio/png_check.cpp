// ks_png_check: checks a screenshot of the studio, for the screenshot tests.
//
//   ks_png_check IMAGE.png [CHECK...]
//
// Checks (any number, in any order; all of them run and print PASS or FAIL):
//   --size WxH             the image is exactly W x H pixels.
//   --region X,Y,W,H       the checks below look only at this rectangle, in
//                          pixels from the top-left corner (default: the whole
//                          image); it must lie inside the image.
//   --not-blank            the region is not one flat colour: at least
//                          16 distinct colours and a luma standard deviation
//                          of at least 2 (0..255 scale).
//   --min-colors K         the region holds at least K distinct RGB colours.
//   --has-panels N         the region shows at least N Dear ImGui window title
//                          bars of the default dark style: bands of rows of a
//                          4-connected area of TitleBg (10,10,10) or
//                          TitleBgActive (41,74,122), give or take 2 per
//                          channel, at least --bar-width wide, --bar-height
//                          tall, and mostly of that colour (the title text is
//                          the rest). Prints each bar found, and the near
//                          misses when there are too few.
//   --bar-width MIN        title bar width in pixels (default 150).
//   --bar-height MIN,MAX   title bar height in pixels (default 14,40: the
//                          default 13 px font gives 19 px, bigger fonts more).
//   --diff OTHER.png       compares the region with the same-sized region of
//                          OTHER: the mean absolute difference per channel
//                          (0..255) must be within --max-mean and --min-mean.
//   --other-region X,Y,W,H the rectangle of OTHER to compare (default: the
//                          same as --region); OTHER may be IMAGE itself, to
//                          compare two halves of one screenshot.
//   --max-mean D           with --diff: the images differ by at most D.
//   --min-mean D           with --diff: the images differ by at least D.
//   --count like|unlike COLOR[/COLOR...]
//                          counts the region's pixels within --tolerance of
//                          any listed COLOR (like) or of none of them
//                          (unlike); a COLOR is R,G,B, each 0..255. The
//                          fraction counted, of the region's pixels, must be
//                          within --min-fraction and --max-fraction. Prints
//                          it and the region's most common colours (which
//                          tell a background's exact colour).
//   --tolerance T          with --count: the largest absolute difference per
//                          channel (0..255) that still matches (default 8).
//   --count-dominant red|green|blue
//                          counts the region's pixels whose named channel
//                          exceeds both other channels by at least --margin;
//                          bounded like --count. Prints the fraction found
//                          for each of the three channels.
//   --margin M             with --count-dominant: levels, 1..255 (default 40).
//   --min-fraction F       with a count: at least F (0..1) of the region's
//                          pixels are counted.
//   --max-fraction F       with a count: at most F of them are.
// One call holds at most one --count or --count-dominant, since the fraction
// bounds apply to it; run ks_png_check again for another count.
//
// Alpha is ignored: screenshots read back from OpenGL may carry any alpha.
// Exit codes: 0 every check passed, 1 a check failed, 2 bad command line,
// 3 an image could not be read.

#include <stb_image.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitUnreadable = 3;
constexpr int kExitHelp = -1;  // parse_options asks main to exit 0

constexpr int kDefaultTolerance = 8;  // --tolerance, per channel, 0..255
constexpr int kDefaultMargin = 40;    // --margin, levels 1..255

struct Rgb {
  uint8_t r = 0, g = 0, b = 0;
  int channel(int index) const { return index == 0 ? r : index == 1 ? g : b; }
  std::string text() const { return std::to_string(r) + "," + std::to_string(g) + "," + std::to_string(b); }
};

constexpr const char* kChannelNames[] = {"red", "green", "blue"};  // indices of Rgb::channel

struct Image {
  int width = 0, height = 0;
  std::vector<Rgb> pixels;  // row-major, top row first
  Rgb at(int x, int y) const {
    return pixels[static_cast<size_t>(y) * static_cast<size_t>(width) + static_cast<size_t>(x)];
  }
};

struct Region {
  int x = 0, y = 0, width = 0, height = 0;
  bool fits_in(const Image& image) const {
    return x >= 0 && y >= 0 && width > 0 && height > 0 && x <= image.width - width && y <= image.height - height;
  }
  std::string text() const {
    return std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(width) + "," + std::to_string(height);
  }
};

struct Options {
  std::string image_path;
  std::optional<std::pair<int, int>> size;  // width, height in pixels
  std::optional<Region> region;             // default: the whole image
  bool not_blank = false;
  std::optional<int> min_colors;
  std::optional<int> min_panels;
  int bar_min_width = 150;  // pixels
  int bar_min_height = 14;  // pixels
  int bar_max_height = 40;  // pixels
  std::string other_path;
  std::optional<Region> other_region;  // default: the same as region
  std::optional<double> max_mean;      // mean absolute difference per channel, 0..255
  std::optional<double> min_mean;      // same unit
  enum class CountMode { kNone, kLike, kUnlike };
  CountMode count_mode = CountMode::kNone;  // --count
  std::vector<Rgb> count_colors;
  std::optional<int> tolerance;         // per channel, 0..255; default kDefaultTolerance
  std::optional<int> dominant_channel;  // --count-dominant: index into kChannelNames
  std::optional<int> margin;            // levels, 1..255; default kDefaultMargin
  std::optional<double> min_fraction;   // of the region's pixels, 0..1
  std::optional<double> max_fraction;   // same unit
  bool has_count() const { return count_mode != CountMode::kNone || dominant_channel; }
};

// Counts failed checks; every check reports, so one run shows everything wrong.
struct Report {
  int failed = 0;
  void pass(const std::string& check, const std::string& detail) {
    std::printf("PASS %s: %s\n", check.c_str(), detail.c_str());
  }
  void fail(const std::string& check, const std::string& detail) {
    std::fprintf(stderr, "FAIL %s: %s\n", check.c_str(), detail.c_str());
    ++failed;
  }
  void check(bool ok, const std::string& check_name, const std::string& detail) {
    ok ? pass(check_name, detail) : fail(check_name, detail);
  }
};

// Parses the comma- or 'x'-separated numbers of TEXT into OUT, all of them.
template <typename Number>
bool parse_numbers(std::string_view text, char separator, std::span<Number> out) {
  const char* cursor = text.data();
  const char* const end = text.data() + text.size();
  for (size_t i = 0; i < out.size(); ++i) {
    if (i > 0) {
      if (cursor == end || *cursor != separator) return false;
      ++cursor;
    }
    const auto [next, error] = std::from_chars(cursor, end, out[i]);
    if (error != std::errc() || next == cursor) return false;
    cursor = next;
  }
  return cursor == end;
}

constexpr const char* kUsage =
    "usage: ks_png_check IMAGE.png [--size WxH] [--region X,Y,W,H] [--not-blank] [--min-colors K]\n"
    "         [--has-panels N [--bar-width MIN] [--bar-height MIN,MAX]]\n"
    "         [--diff OTHER.png [--other-region X,Y,W,H] [--max-mean D] [--min-mean D]]\n"
    "         [--count like|unlike R,G,B[/R,G,B...] [--tolerance T] | --count-dominant red|green|blue [--margin M]\n"
    "          [--min-fraction F] [--max-fraction F]]\n"
    "The comment at the top of tests/studio/png_check.cpp explains each check.\n";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "ks_png_check: %s\n%s", message.c_str(), kUsage);
  return kExitUsage;
}

// Returns 0 and fills OPTIONS; kExitHelp after printing the usage; or prints
// what is wrong and returns kExitUsage.
int parse_options(std::span<char*> args, Options& options) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string_view arg = args[i];
    if (arg.empty() || arg[0] != '-') {
      if (!options.image_path.empty())
        return usage_error("two images given: '" + options.image_path + "' and '" + std::string(arg) + "'");
      options.image_path = arg;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      std::fputs(kUsage, stdout);
      return kExitHelp;
    }
    if (arg == "--not-blank") {
      options.not_blank = true;
      continue;
    }
    constexpr std::string_view kValueOptions[] = {
        "--size",           "--region", "--other-region", "--min-colors",  "--has-panels", "--bar-width",
        "--bar-height",     "--diff",   "--max-mean",     "--min-mean",    "--count",      "--tolerance",
        "--count-dominant", "--margin", "--min-fraction", "--max-fraction"};
    if (std::find(std::begin(kValueOptions), std::end(kValueOptions), arg) == std::end(kValueOptions)) {
      return usage_error("unknown option '" + std::string(arg) + "'");
    }
    if (i + 1 >= args.size()) return usage_error(std::string(arg) + " needs a value");
    const std::string_view value = args[++i];
    const auto bad_value = [&](std::string_view expected) {
      return usage_error(std::string(arg) + ": '" + std::string(value) + "' is not " + std::string(expected));
    };
    if ((arg == "--count" || arg == "--count-dominant") && options.has_count()) {
      return usage_error("one --count or --count-dominant per call: run ks_png_check again for " + std::string(arg));
    }
    if (arg == "--size") {
      int size[2] = {};
      if (!parse_numbers<int>(value, 'x', size) || size[0] <= 0 || size[1] <= 0) return bad_value("WxH");
      options.size = std::pair(size[0], size[1]);
    } else if (arg == "--region" || arg == "--other-region") {
      int numbers[4] = {};
      if (!parse_numbers<int>(value, ',', numbers) || numbers[0] < 0 || numbers[1] < 0 || numbers[2] <= 0 ||
          numbers[3] <= 0) {
        return bad_value("X,Y,W,H with W and H positive");
      }
      const Region region{numbers[0], numbers[1], numbers[2], numbers[3]};
      (arg == "--region" ? options.region : options.other_region) = region;
    } else if (arg == "--min-colors" || arg == "--has-panels" || arg == "--bar-width") {
      int number[1] = {};
      if (!parse_numbers<int>(value, ',', number) || number[0] < 1) return bad_value("a whole number of at least 1");
      if (arg == "--min-colors") options.min_colors = number[0];
      if (arg == "--has-panels") options.min_panels = number[0];
      if (arg == "--bar-width") options.bar_min_width = number[0];
    } else if (arg == "--bar-height") {
      int range[2] = {};
      if (!parse_numbers<int>(value, ',', range) || range[0] < 1 || range[1] < range[0])
        return bad_value("MIN,MAX with 1 <= MIN <= MAX");
      options.bar_min_height = range[0];
      options.bar_max_height = range[1];
    } else if (arg == "--diff") {
      options.other_path = value;
    } else if (arg == "--max-mean" || arg == "--min-mean") {
      double mean[1] = {};
      if (!parse_numbers<double>(value, ',', mean) || !(mean[0] >= 0.0)) return bad_value("a number of at least 0");
      (arg == "--max-mean" ? options.max_mean : options.min_mean) = mean[0];
    } else if (arg == "--count-dominant") {
      const auto* name = std::find(std::begin(kChannelNames), std::end(kChannelNames), value);
      if (name == std::end(kChannelNames)) return bad_value("red, green or blue");
      options.dominant_channel = static_cast<int>(name - std::begin(kChannelNames));
    } else if (arg == "--count") {
      if (value != "like" && value != "unlike") return bad_value("like or unlike");
      options.count_mode = value == "like" ? Options::CountMode::kLike : Options::CountMode::kUnlike;
      if (i + 1 >= args.size()) return usage_error("--count " + std::string(value) + " needs R,G,B[/R,G,B...]");
      // COLOR/COLOR/...: each one R,G,B.
      const std::string_view colors = args[++i];
      for (size_t start = 0; start <= colors.size();) {
        const size_t slash = std::min(colors.find('/', start), colors.size());
        int rgb[3] = {};
        if (!parse_numbers<int>(colors.substr(start, slash - start), ',', rgb) ||
            std::any_of(std::begin(rgb), std::end(rgb), [](int c) { return c < 0 || c > 255; })) {
          return usage_error("--count: '" + std::string(colors) + "' is not R,G,B[/R,G,B...] with each channel 0..255");
        }
        options.count_colors.push_back(
            {static_cast<uint8_t>(rgb[0]), static_cast<uint8_t>(rgb[1]), static_cast<uint8_t>(rgb[2])});
        start = slash + 1;
      }
    } else if (arg == "--tolerance" || arg == "--margin") {
      const int low = arg == "--tolerance" ? 0 : 1;
      int number[1] = {};
      if (!parse_numbers<int>(value, ',', number) || number[0] < low || number[0] > 255) {
        return bad_value("a whole number from " + std::to_string(low) + " to 255");
      }
      (arg == "--tolerance" ? options.tolerance : options.margin) = number[0];
    } else if (arg == "--min-fraction" || arg == "--max-fraction") {
      double fraction[1] = {};
      if (!parse_numbers<double>(value, ',', fraction) || !(fraction[0] >= 0.0 && fraction[0] <= 1.0)) {
        return bad_value("a fraction from 0 to 1");
      }
      (arg == "--min-fraction" ? options.min_fraction : options.max_fraction) = fraction[0];
    }
  }
  if (options.image_path.empty()) return usage_error("no image given");
  // A call that checks nothing would pass whatever the image holds.
  if (!options.size && !options.not_blank && !options.min_colors && !options.min_panels && options.other_path.empty() &&
      !options.has_count()) {
    return usage_error("no check given");
  }
  const bool has_bound = options.max_mean || options.min_mean;
  if (!options.other_path.empty() && !has_bound) return usage_error("--diff needs --max-mean or --min-mean");
  if (options.other_path.empty() && (has_bound || options.other_region)) {
    return usage_error("--max-mean, --min-mean and --other-region need --diff");
  }
  const bool has_fraction = options.min_fraction || options.max_fraction;
  if (options.has_count() && !has_fraction) {
    return usage_error(std::string(options.dominant_channel ? "--count-dominant" : "--count") +
                       " needs --min-fraction or --max-fraction");
  }
  if (!options.has_count() && has_fraction) {
    return usage_error("--min-fraction and --max-fraction need --count or --count-dominant");
  }
  if (options.min_fraction && options.max_fraction && *options.min_fraction > *options.max_fraction) {
    return usage_error("--min-fraction is above --max-fraction: no image can pass");
  }
  if (options.tolerance && options.count_mode == Options::CountMode::kNone) {
    return usage_error("--tolerance needs --count");
  }
  if (options.margin && !options.dominant_channel) return usage_error("--margin needs --count-dominant");
  return 0;
}

std::optional<Image> load_image(const std::string& path) {
  int width = 0, height = 0, channels_in_file = 0;
  // Asking for 3 channels makes stb drop alpha and expand grey for us.
  stbi_uc* data = stbi_load(path.c_str(), &width, &height, &channels_in_file, 3);
  if (!data) {
    std::fprintf(stderr, "ks_png_check: cannot read '%s': %s\n", path.c_str(), stbi_failure_reason());
    return std::nullopt;
  }
  Image image{width, height, std::vector<Rgb>(static_cast<size_t>(width) * static_cast<size_t>(height))};
  const std::span<const stbi_uc> bytes(data, image.pixels.size() * 3);
  for (size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = {bytes[3 * i], bytes[3 * i + 1], bytes[3 * i + 2]};
  stbi_image_free(data);
  return image;
}

struct ColorStats {
  size_t distinct_colors = 0;
  double luma_stddev = 0.0;  // Rec. 601 luma, 0..255
};

ColorStats measure_colors(const Image& image, const Region& region) {
  std::vector<bool> seen(size_t{1} << 24);  // one bit per 24-bit colour: 2 MB
  ColorStats stats;
  double sum = 0.0, sum_of_squares = 0.0;
  for (int y = region.y; y < region.y + region.height; ++y) {
    for (int x = region.x; x < region.x + region.width; ++x) {
      const Rgb c = image.at(x, y);
      const size_t key = size_t{c.r} << 16 | size_t{c.g} << 8 | size_t{c.b};
      if (!seen[key]) {
        seen[key] = true;
        ++stats.distinct_colors;
      }
      const double luma = 0.299 * c.r + 0.587 * c.g + 0.114 * c.b;
      sum += luma;
      sum_of_squares += luma * luma;
    }
  }
  const double count = static_cast<double>(region.width) * region.height;
  const double mean = sum / count;
  stats.luma_stddev = std::sqrt(std::max(0.0, sum_of_squares / count - mean * mean));
  return stats;
}

// The dark style's title bar colours (imgui_draw.cpp, StyleColorsDark):
// TitleBg (0.04,0.04,0.04) and TitleBgActive (0.16,0.29,0.48), times 255.
struct TitleColor {
  Rgb rgb;
  const char* name;
};
constexpr TitleColor kTitleColors[] = {{{10, 10, 10}, "TitleBg"}, {{41, 74, 122}, "TitleBgActive"}};
// Software GL hits these exactly; the slack is for other rasterisers'
// rounding. Window backgrounds (WindowBg 15,15,15 at 94%) stay outside it.
constexpr int kTitleColorTolerance = 2;  // per channel, 0..255

struct TitleBar {
  int x = 0, y = 0, width = 0, height = 0;  // bounding box, image pixels
  size_t pixel_count = 0;                   // pixels of the title colour inside it
  const char* color_name = "";
  std::string text() const {
    return std::string(color_name) + " " + std::to_string(width) + "x" + std::to_string(height) + " at (" +
           std::to_string(x) + "," + std::to_string(y) + ")";
  }
};

// Title text and the collapse arrow cover well under half of a bar.
constexpr double kMinBarFill = 0.6;  // fraction of a bar's bounding box in the title colour

// Candidate title bars inside REGION: the 4-connected areas of each title
// colour, cut into bands of consecutive rows that are mostly of that colour.
// The title text does not split a bar (the frame padding above and below it
// keeps the colour connected); the cut into bands drops what touches a bar
// and has nearly its colour, such as a scrollbar's background (ScrollbarBg
// over WindowBg comes out at about 10,10,10) running down from its end.
std::vector<TitleBar> find_title_bar_candidates(const Image& image, const Region& region, int bar_min_width) {
  const auto class_of = [&](int x, int y) {
    const Rgb c = image.at(x, y);
    for (size_t i = 0; i < std::size(kTitleColors); ++i) {
      const Rgb t = kTitleColors[i].rgb;
      if (std::abs(c.r - t.r) <= kTitleColorTolerance && std::abs(c.g - t.g) <= kTitleColorTolerance &&
          std::abs(c.b - t.b) <= kTitleColorTolerance) {
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  const auto index = [&](int x, int y) {
    return static_cast<size_t>(y - region.y) * static_cast<size_t>(region.width) + static_cast<size_t>(x - region.x);
  };
  std::vector<int> color_class(static_cast<size_t>(region.width) * static_cast<size_t>(region.height));
  for (int y = region.y; y < region.y + region.height; ++y) {
    for (int x = region.x; x < region.x + region.width; ++x) color_class[index(x, y)] = class_of(x, y);
  }

  struct RowSpan {
    int min_x = 0, max_x = -1;  // extent of the area on this row, image pixels
    int count = 0;              // pixels of the area on this row
  };
  std::vector<bool> visited(color_class.size());
  std::vector<std::pair<int, int>> stack;  // an explicit stack: a recursive fill would overflow on big areas
  std::vector<RowSpan> rows;               // of the current area, indexed by y - region.y
  std::vector<TitleBar> candidates;
  for (int y0 = region.y; y0 < region.y + region.height; ++y0) {
    for (int x0 = region.x; x0 < region.x + region.width; ++x0) {
      const int cls = color_class[index(x0, y0)];
      if (cls < 0 || visited[index(x0, y0)]) continue;
      // Flood-fill one area, recording each row's extent and pixel count.
      rows.assign(static_cast<size_t>(region.height), RowSpan{});
      int max_y = y0, widest_row = 0;
      visited[index(x0, y0)] = true;
      stack.assign(1, {x0, y0});
      while (!stack.empty()) {
        const auto [x, y] = stack.back();
        stack.pop_back();
        RowSpan& row = rows[static_cast<size_t>(y - region.y)];
        if (row.count == 0) row.min_x = row.max_x = x;
        row.min_x = std::min(row.min_x, x);
        row.max_x = std::max(row.max_x, x);
        widest_row = std::max(widest_row, ++row.count);
        max_y = std::max(max_y, y);
        const std::pair<int, int> neighbours[] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
        for (const auto& [nx, ny] : neighbours) {
          if (nx < region.x || ny < region.y || nx >= region.x + region.width || ny >= region.y + region.height) {
            continue;
          }
          const size_t n = index(nx, ny);
          if (visited[n] || color_class[n] != cls) continue;
          visited[n] = true;
          stack.push_back({nx, ny});
        }
      }
      // A row belongs to a band when it is mostly of the colour; relative to
      // the area's widest row too, so that bars too narrow to count still
      // show up whole among the near misses.
      const double band_row_count = kMinBarFill * std::min(widest_row, bar_min_width);
      TitleBar band;
      const auto close_band = [&] {
        if (band.height > 0) candidates.push_back(band);
        band = TitleBar{};
      };
      for (int y = y0; y <= max_y; ++y) {
        const RowSpan& row = rows[static_cast<size_t>(y - region.y)];
        if (row.count < band_row_count) {
          close_band();
          continue;
        }
        if (band.height == 0) {
          band = {row.min_x, y, row.max_x - row.min_x + 1, 0, 0, kTitleColors[cls].name};
        }
        const int band_max_x = std::max(band.x + band.width - 1, row.max_x);
        band.x = std::min(band.x, row.min_x);
        band.width = band_max_x - band.x + 1;
        ++band.height;
        band.pixel_count += static_cast<size_t>(row.count);
      }
      close_band();
    }
  }
  return candidates;
}

void check_panels(const Image& image, const Region& region, const Options& options, Report& report) {
  // Areas narrower than this are glyph holes and specks, not worth listing.
  constexpr int kMinReportedWidth = 40;  // pixels
  std::vector<TitleBar> bars, near_misses;
  for (const TitleBar& area : find_title_bar_candidates(image, region, options.bar_min_width)) {
    const double fill = static_cast<double>(area.pixel_count) / (static_cast<double>(area.width) * area.height);
    const bool is_bar = area.width >= options.bar_min_width && area.height >= options.bar_min_height &&
                        area.height <= options.bar_max_height && fill >= kMinBarFill;
    if (is_bar) {
      bars.push_back(area);
    } else if (area.width >= kMinReportedWidth) {
      near_misses.push_back(area);
    }
  }
  std::string detail =
      "found " + std::to_string(bars.size()) + " title bar(s), need " + std::to_string(*options.min_panels);
  for (const TitleBar& bar : bars) detail += "\n    " + bar.text();
  const bool ok = bars.size() >= static_cast<size_t>(*options.min_panels);
  if (!ok) {
    detail += "\n  (a bar is at least " + std::to_string(options.bar_min_width) + " px wide and " +
              std::to_string(options.bar_min_height) + ".." + std::to_string(options.bar_max_height) + " px tall)";
    const size_t shown = std::min<size_t>(near_misses.size(), 8);
    for (size_t i = 0; i < shown; ++i) detail += "\n    not a bar: " + near_misses[i].text();
    if (near_misses.size() > shown) detail += "\n    ... and " + std::to_string(near_misses.size() - shown) + " more";
  }
  report.check(ok, "--has-panels", detail);
}

void check_diff(const Image& image, const Region& region, const Image& other, const Region& other_region,
                const Options& options, Report& report) {
  uint64_t total = 0, differing_pixels = 0;
  int max_difference = 0;
  for (int dy = 0; dy < region.height; ++dy) {
    for (int dx = 0; dx < region.width; ++dx) {
      const Rgb a = image.at(region.x + dx, region.y + dy);
      const Rgb b = other.at(other_region.x + dx, other_region.y + dy);
      const int channel_differences[] = {std::abs(a.r - b.r), std::abs(a.g - b.g), std::abs(a.b - b.b)};
      int pixel_max = 0;
      for (const int d : channel_differences) {
        total += static_cast<uint64_t>(d);
        pixel_max = std::max(pixel_max, d);
      }
      differing_pixels += pixel_max > 0 ? 1 : 0;
      max_difference = std::max(max_difference, pixel_max);
    }
  }
  const double pixel_count = static_cast<double>(region.width) * region.height;
  const double mean = static_cast<double>(total) / (3.0 * pixel_count);
  char summary[160];
  std::snprintf(summary, sizeof summary,
                "mean |difference| %.3f per channel (0..255), %.2f%% of pixels differ, largest %d", mean,
                100.0 * static_cast<double>(differing_pixels) / pixel_count, max_difference);
  const std::string detail = std::string(summary) + " (region " + region.text() + " of " + options.image_path +
                             " against " + other_region.text() + " of " + options.other_path + ")";
  const auto bound_text = [](const char* name, double bound) {
    char text[64];
    std::snprintf(text, sizeof text, "--diff %s %g", name, bound);
    return std::string(text);
  };
  if (options.max_mean) report.check(mean <= *options.max_mean, bound_text("--max-mean", *options.max_mean), detail);
  if (options.min_mean) report.check(mean >= *options.min_mean, bound_text("--min-mean", *options.min_mean), detail);
}

std::string format_fraction(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4f", fraction);
  return text;
}

// The SHOWN most common colours of REGION with the fraction of its pixels
// each covers, most common first: "40,44,52 0.8123, 90,90,100 0.0511, ...".
std::string most_common_colors(const Image& image, const Region& region, size_t shown) {
  std::vector<uint32_t> keys;
  keys.reserve(static_cast<size_t>(region.width) * static_cast<size_t>(region.height));
  for (int y = region.y; y < region.y + region.height; ++y) {
    for (int x = region.x; x < region.x + region.width; ++x) {
      const Rgb c = image.at(x, y);
      keys.push_back(uint32_t{c.r} << 16 | uint32_t{c.g} << 8 | uint32_t{c.b});
    }
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::pair<size_t, uint32_t>> counts;  // pixel count, colour key
  for (size_t i = 0; i < keys.size();) {
    const size_t run_end = static_cast<size_t>(
        std::upper_bound(keys.begin() + static_cast<std::ptrdiff_t>(i), keys.end(), keys[i]) - keys.begin());
    counts.push_back({run_end - i, keys[i]});
    i = run_end;
  }
  shown = std::min(shown, counts.size());
  const auto more_first = [](const auto& a, const auto& b) {
    return a.first > b.first || (a.first == b.first && a.second < b.second);
  };
  std::partial_sort(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(shown), counts.end(), more_first);
  std::string text;
  for (size_t i = 0; i < shown; ++i) {
    const uint32_t key = counts[i].second;
    const Rgb c{static_cast<uint8_t>(key >> 16), static_cast<uint8_t>(key >> 8), static_cast<uint8_t>(key)};
    text += (i > 0 ? ", " : "") + c.text() + " " +
            format_fraction(static_cast<double>(counts[i].first) / static_cast<double>(keys.size()));
  }
  return text;
}

// Checks FRACTION against --min-fraction and --max-fraction, each bound its
// own PASS or FAIL line named CHECK plus the bound.
void check_fraction(double fraction, const std::string& check, const std::string& detail, const Options& options,
                    Report& report) {
  const auto bound_text = [&](const char* name, double bound) {
    char text[64];
    std::snprintf(text, sizeof text, " %s %g", name, bound);
    return check + text;
  };
  if (options.min_fraction) {
    report.check(fraction >= *options.min_fraction, bound_text("--min-fraction", *options.min_fraction), detail);
  }
  if (options.max_fraction) {
    report.check(fraction <= *options.max_fraction, bound_text("--max-fraction", *options.max_fraction), detail);
  }
}

void check_count(const Image& image, const Region& region, const Options& options, Report& report) {
  const int tolerance = options.tolerance.value_or(kDefaultTolerance);
  const auto matches_any = [&](Rgb c) {
    return std::any_of(options.count_colors.begin(), options.count_colors.end(), [&](Rgb t) {
      return std::abs(c.r - t.r) <= tolerance && std::abs(c.g - t.g) <= tolerance && std::abs(c.b - t.b) <= tolerance;
    });
  };
  const bool like = options.count_mode == Options::CountMode::kLike;
  uint64_t counted = 0;
  for (int y = region.y; y < region.y + region.height; ++y) {
    for (int x = region.x; x < region.x + region.width; ++x) counted += matches_any(image.at(x, y)) == like ? 1 : 0;
  }
  std::string colors;
  for (const Rgb& c : options.count_colors) colors += (colors.empty() ? "" : "/") + c.text();
  const uint64_t pixel_count = static_cast<uint64_t>(region.width) * static_cast<uint64_t>(region.height);
  const double fraction = static_cast<double>(counted) / static_cast<double>(pixel_count);
  // Five colours: a viewport's background, its grid and a few shades of what
  // stands on it.
  constexpr size_t kShownColors = 5;
  const std::string detail = "fraction " + format_fraction(fraction) + " (" + std::to_string(counted) + " of " +
                             std::to_string(pixel_count) + " pixels) within " + std::to_string(tolerance) + " of " +
                             (like ? "any of " : "none of ") + colors + " in region " + region.text() +
                             "\n    most common colours: " + most_common_colors(image, region, kShownColors);
  check_fraction(fraction, std::string("--count ") + (like ? "like " : "unlike ") + colors, detail, options, report);
}

void check_count_dominant(const Image& image, const Region& region, const Options& options, Report& report) {
  const int margin = options.margin.value_or(kDefaultMargin);
  uint64_t counted[3] = {};  // per channel of kChannelNames
  for (int y = region.y; y < region.y + region.height; ++y) {
    for (int x = region.x; x < region.x + region.width; ++x) {
      const Rgb c = image.at(x, y);
      for (int k = 0; k < 3; ++k) {
        const int value = c.channel(k);
        const bool dominant = value - c.channel((k + 1) % 3) >= margin && value - c.channel((k + 2) % 3) >= margin;
        counted[k] += dominant ? 1 : 0;
      }
    }
  }
  const double pixel_count = static_cast<double>(region.width) * region.height;
  const int k = *options.dominant_channel;
  const double fraction = static_cast<double>(counted[k]) / pixel_count;
  // The other channels' fractions help tell a wrong colour from a missing one.
  std::string others;
  for (int j = 0; j < 3; ++j) {
    if (j == k) continue;
    others += std::string(others.empty() ? "" : ", ") + kChannelNames[j] + " " +
              format_fraction(static_cast<double>(counted[j]) / pixel_count);
  }
  const std::string detail = "fraction " + format_fraction(fraction) + " (" + std::to_string(counted[k]) + " of " +
                             std::to_string(static_cast<uint64_t>(pixel_count)) + " pixels) " + kChannelNames[k] +
                             " above both other channels by at least " + std::to_string(margin) + " in region " +
                             region.text() + "; the same for " + others;
  check_fraction(fraction, std::string("--count-dominant ") + kChannelNames[k], detail, options, report);
}

}  // namespace

int main(int argc, char** argv) {
  // Line buffering keeps PASS (stdout) and FAIL (stderr) lines in order when
  // both streams go to one log.
  std::setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
  Options options;
  if (const int status = parse_options(std::span(argv + 1, argv + argc), options); status != 0) {
    return status == kExitHelp ? 0 : status;
  }
  const std::optional<Image> image = load_image(options.image_path);
  if (!image) return kExitUnreadable;
  std::optional<Image> other;
  if (!options.other_path.empty()) {
    other = options.other_path == options.image_path ? image : load_image(options.other_path);
    if (!other) return kExitUnreadable;
  }
  std::printf("%s: %dx%d\n", options.image_path.c_str(), image->width, image->height);

  Report report;
  if (options.size) {
    const auto [width, height] = *options.size;
    report.check(image->width == width && image->height == height,
                 "--size " + std::to_string(width) + "x" + std::to_string(height),
                 "the image is " + std::to_string(image->width) + "x" + std::to_string(image->height));
  }
  const Region region = options.region.value_or(Region{0, 0, image->width, image->height});
  const bool region_checks =
      options.not_blank || options.min_colors || options.min_panels || other || options.has_count();
  if (region_checks && !region.fits_in(*image)) {
    report.fail("--region " + region.text(), "does not fit in the " + std::to_string(image->width) + "x" +
                                                 std::to_string(image->height) + " image; its checks were skipped");
    return kExitFailed;
  }
  if (options.not_blank || options.min_colors) {
    const ColorStats stats = measure_colors(*image, region);
    char detail[160];
    std::snprintf(detail, sizeof detail, "%zu distinct colours, luma standard deviation %.2f in region %s",
                  stats.distinct_colors, stats.luma_stddev, region.text().c_str());
    // 16 colours and a spread of 2 luma levels: anything drawn on a flat
    // background passes, one flat colour (even with a few stray pixels) fails.
    constexpr size_t kNotBlankMinColors = 16;
    constexpr double kNotBlankMinLumaStddev = 2.0;  // 0..255
    if (options.not_blank) {
      report.check(stats.distinct_colors >= kNotBlankMinColors && stats.luma_stddev >= kNotBlankMinLumaStddev,
                   "--not-blank", detail);
    }
    if (options.min_colors) {
      report.check(stats.distinct_colors >= static_cast<size_t>(*options.min_colors),
                   "--min-colors " + std::to_string(*options.min_colors), detail);
    }
  }
  if (options.min_panels) check_panels(*image, region, options, report);
  if (other) {
    const Region other_region = options.other_region.value_or(region);
    if (other_region.width != region.width || other_region.height != region.height) {
      report.fail("--diff", "region " + region.text() + " and other region " + other_region.text() + " differ in size");
    } else if (!other_region.fits_in(*other)) {
      report.fail("--diff", "region " + other_region.text() + " does not fit in " + options.other_path + " (" +
                                std::to_string(other->width) + "x" + std::to_string(other->height) + ")");
    } else {
      check_diff(*image, region, *other, other_region, options, report);
    }
  }
  if (options.count_mode != Options::CountMode::kNone) check_count(*image, region, options, report);
  if (options.dominant_channel) check_count_dominant(*image, region, options, report);
  return report.failed > 0 ? kExitFailed : 0;
}
