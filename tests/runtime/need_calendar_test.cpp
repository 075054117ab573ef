// NeedCalendar against the order the packer writes keys in: smallest need
// first, ties by slot, with needs near and far (past the ring), and
// slots pushed again at the frame being read (a discontinuity).

#include <gtest/gtest.h>

#include <random>
#include <set>
#include <utility>
#include <vector>

#include "core/runtime/need_calendar.h"

namespace ks {
namespace {

// Starts `calendar` at frame 0 with slots 0 .. slots - 1 at random needs
// below 100; returns them as (need, slot), the order pop() must follow.
std::set<std::pair<uint32_t, uint32_t>> push_random_needs(NeedCalendar& calendar, uint32_t slots, std::mt19937& rng) {
  calendar.reserve(slots);
  calendar.clear(0);
  std::set<std::pair<uint32_t, uint32_t>> needs;
  for (uint32_t s = 0; s < slots; ++s) {
    const uint32_t need = rng() % 100;
    calendar.push(need, s);
    needs.insert({need, s});
  }
  return needs;
}

TEST(NeedCalendar, PopsBySmallestNeedThenSlotLikeASortedSet) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    const uint32_t slots = 1 + rng() % 200;  // one to four words per ring frame
    NeedCalendar calendar;
    std::set<std::pair<uint32_t, uint32_t>> expected = push_random_needs(calendar, slots, rng);
    int pops = 0;
    while (!expected.empty()) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << " pop " << pops);
      ASSERT_FALSE(calendar.empty());
      const auto [need, slot] = *expected.begin();
      ASSERT_EQ(calendar.next_need(), need);
      ASSERT_EQ(calendar.pop(), slot);
      expected.erase(expected.begin());
      ++pops;
      // The slot waits again, mostly a few frames on, sometimes at this very
      // frame, sometimes far past the ring, until it has had its keys.
      if (rng() % 8 != 0) {
        const uint32_t r = rng() % 16;
        const uint32_t ahead = r == 0 ? 0 : (r == 1 ? 64 + rng() % 500 : (r == 2 ? 63 : rng() % 12));
        calendar.push(need + ahead, slot);
        expected.insert({need + ahead, slot});
      }
    }
    EXPECT_TRUE(calendar.empty());
    EXPECT_EQ(calendar.next_need(), NeedCalendar::kNone);
  }
}

// take_next_need hands out a whole need frame at once: the slots pop()
// would return for it, in that order, while the visits push slots on to
// later needs (near, at the ring's edge, and far past it).
TEST(NeedCalendar, TakingANeedVisitsItsSlotsInPopOrder) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    std::mt19937 rng(seed);
    const uint32_t slots = 1 + rng() % 200;
    NeedCalendar calendar;
    std::set<std::pair<uint32_t, uint32_t>> expected = push_random_needs(calendar, slots, rng);
    int takes = 0;
    while (!expected.empty()) {
      SCOPED_TRACE(testing::Message() << "seed " << seed << " take " << takes);
      const uint32_t need = expected.begin()->first;
      ASSERT_EQ(calendar.next_need(), need);
      std::vector<uint32_t> due;
      while (!expected.empty() && expected.begin()->first == need) {
        due.push_back(expected.begin()->second);
        expected.erase(expected.begin());
      }
      std::vector<uint32_t> visited;
      calendar.take_next_need([&](uint32_t slot) {
        visited.push_back(slot);
        if (rng() % 8 != 0) {
          const uint32_t r = rng() % 16;
          const uint32_t ahead = r == 1 ? 64 + rng() % 500 : (r == 2 ? 63 : 1 + rng() % 12);
          calendar.push(need + ahead, slot);
          expected.insert({need + ahead, slot});
        }
      });
      ASSERT_EQ(visited, due);
      ++takes;
    }
    EXPECT_TRUE(calendar.empty());
  }
}

TEST(NeedCalendar, ANeedBeforeTheCurrentFrameCountsAsTheCurrentFrame) {
  NeedCalendar calendar;
  calendar.reserve(4);
  calendar.clear(100);
  calendar.push(7, 3);  // only a corrupt stream asks for this
  calendar.push(100, 2);
  EXPECT_EQ(calendar.next_need(), 100u);
  EXPECT_EQ(calendar.pop(), 2u);
  EXPECT_EQ(calendar.pop(), 3u);
  EXPECT_TRUE(calendar.empty());
}

TEST(NeedCalendar, ClearingForgetsEverythingAndMovesTheCurrentFrame) {
  NeedCalendar calendar;
  calendar.reserve(70);
  calendar.clear(0);
  calendar.push(5, 69);
  calendar.push(1000, 1);
  calendar.clear(2000);
  EXPECT_TRUE(calendar.empty());
  calendar.push(2001, 0);
  EXPECT_EQ(calendar.next_need(), 2001u);
  EXPECT_EQ(calendar.pop(), 0u);
  EXPECT_TRUE(calendar.empty());
}

}  // namespace
}  // namespace ks
