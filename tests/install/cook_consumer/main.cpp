// cook_consumer: opens a stream that the build cooked and prints what it
// holds, including only <keystream/...> headers, as a game would.
//   cook_consumer FILE.ks
#include <cstdio>
#include <fstream>
#include <iterator>
#include <vector>

#include <keystream/runtime/stream_view.h>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: cook_consumer FILE.ks\n");
    return 2;
  }
  std::ifstream file(argv[1], std::ios::binary);
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
  ks::Result<ks::StreamView> opened = ks::StreamView::open(bytes, argv[1]);
  if (!opened) {
    std::fprintf(stderr, "cook_consumer: %s\n", opened.error().c_str());
    return 1;
  }
  const ks::StreamView& stream = opened.value();
  std::printf("%u bones, %u frames at %.4g Hz\n", stream.bone_count(), stream.frame_count(),
              double{stream.sample_rate_hz()});
  return 0;
}
