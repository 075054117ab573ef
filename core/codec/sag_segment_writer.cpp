#include "keystream/codec/sag_segment_writer.h"

#include <algorithm>
#include <bit>
#include <cassert>

#include "keystream/codec/bisection_segment_writer.h"

namespace ks {

namespace {

// A record's residuals: frame, then components 0..3 (0 where not coded).
struct Residuals {
  uint32_t field[kKeyFields] = {};
};

template <class Guess>
Residuals residuals_of(const BisectionKey& key, uint32_t frame_guess, uint8_t coded_mask, Guess guess) {
  Residuals r;
  r.field[0] = zigzag(static_cast<int32_t>(key.frame - frame_guess));
  for (uint32_t c = 0; c < 4; ++c) {
    if (((coded_mask >> c) & 1u) == 0) continue;
    r.field[c + 1] =
        zigzag(static_cast<int32_t>(static_cast<uint32_t>(key.codes[c]) - static_cast<uint32_t>(guess(c, key.frame))));
  }
  return r;
}

// The widths of `records`, then each record's fields and "negated" bit.
void write_records(BitWriter& out, const BisectionTrackCoding& track, std::span<const Residuals> records,
                   std::span<const bool> negated) {
  uint32_t widths[kKeyFields] = {};
  for (const Residuals& r : records) {
    for (uint32_t f = 0; f < kKeyFields; ++f) {
      widths[f] = std::max(widths[f], static_cast<uint32_t>(std::bit_width(r.field[f])));
    }
  }
  for (uint32_t f = 0; f < kKeyFields; ++f) {
    if (f > 0 && ((track.coded_mask >> (f - 1)) & 1u) == 0) continue;
    assert(widths[f] < (1u << kSegmentWidthBits));
    out.write(widths[f], kSegmentWidthBits);
  }
  for (size_t i = 0; i < records.size(); ++i) {
    for (uint32_t f = 0; f < kKeyFields; ++f) out.write(records[i].field[f], widths[f]);
    if (track.negation_bits) out.write(negated[i] ? 1u : 0u, 1);
  }
}

}  // namespace

void write_sag_segment(BitWriter& out, const BisectionTrackCoding& track, std::span<const BisectionKey> keys,
                       const BisectionKey& before) {
  const uint32_t count = static_cast<uint32_t>(keys.size());
  assert(count >= 1 && count <= kKeysPerSegment);
  BisectionKey at[kKeysPerSegment + 1];
  at[0] = before;
  std::copy(keys.begin(), keys.end(), at + 1);

  const BisectionKey& anchor = at[count];
  write_segment_anchor(out, track, anchor);

  const uint32_t sag = sag_position(count);
  if (sag != 0) {
    const Residuals record =
        residuals_of(at[sag], sag_frame_guess(before.frame, anchor.frame, sag, count), track.coded_mask,
                     [&](uint32_t c, uint32_t frame) {
                       return bisection_code_guess(before.codes[c], anchor.codes[c], before.frame, anchor.frame, frame);
                     });
    const bool negated[1] = {at[sag].negated};
    write_records(out, track, std::span(&record, 1), negated);
  }
  if (count < 3) return;
  const SagCurve curve = make_sag_curve(before, anchor, at[sag], true);
  Residuals records[kKeysPerSegment];
  bool negated[kKeysPerSegment] = {};
  uint32_t n = 0;
  for (uint32_t p = 1; p < count; ++p) {
    if (p == sag) continue;
    records[n] = residuals_of(at[p], sag_frame_guess(before.frame, anchor.frame, p, count), track.coded_mask,
                              [&](uint32_t c, uint32_t frame) { return sag_code_guess(curve, c, frame); });
    negated[n] = at[p].negated;
    ++n;
  }
  write_records(out, track, std::span(records, n), std::span(negated, n));
}

}  // namespace ks
