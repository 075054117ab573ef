#include "app/studio/io/png_writer.h"

#include <glad/gl.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "keystream/io/file_io.h"

namespace ks::studio {

namespace {

// The window is read and deflated a band of rows at a time, so a screenshot
// costs a band, zlib's state and the compressed file, never a whole copy of
// the window (4.8 MB at 1600x1000, on top of a 50,000-bone rig's peak).
constexpr int kBandRows = 32;

void put_u32(std::string& out, uint32_t v) {
  const char bytes[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                         static_cast<char>(v)};
  out.append(bytes, 4);
}

// A chunk: length, type, data, and the CRC of type and data (PNG spec §5.3).
void put_chunk(std::string& out, const char (&type)[5], const unsigned char* data, size_t size) {
  put_u32(out, static_cast<uint32_t>(size));
  out.append(type, 4);
  out.append(reinterpret_cast<const char*>(data), size);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
  if (size > 0) crc = crc32(crc, data, static_cast<uInt>(size));
  put_u32(out, static_cast<uint32_t>(crc));
}

// Deflates filtered rows into IDAT chunks of the output.
class IdatWriter {
 public:
  explicit IdatWriter(std::string& png) : m_png(png) { m_ok = deflateInit(&m_stream, Z_DEFAULT_COMPRESSION) == Z_OK; }
  ~IdatWriter() {
    if (m_ok) deflateEnd(&m_stream);
  }
  IdatWriter(const IdatWriter&) = delete;
  IdatWriter& operator=(const IdatWriter&) = delete;

  bool write(const unsigned char* data, size_t size, bool last) {
    if (!m_ok) return false;
    m_stream.next_in = const_cast<Bytef*>(data);
    m_stream.avail_in = static_cast<uInt>(size);
    const int flush = last ? Z_FINISH : Z_NO_FLUSH;
    for (;;) {
      m_stream.next_out = m_out.data();
      m_stream.avail_out = static_cast<uInt>(m_out.size());
      const int rc = deflate(&m_stream, flush);
      if (rc == Z_STREAM_ERROR) return m_ok = false;
      const size_t produced = m_out.size() - m_stream.avail_out;
      if (produced > 0) put_chunk(m_png, "IDAT", m_out.data(), produced);
      if (last ? rc == Z_STREAM_END : m_stream.avail_in == 0 && m_stream.avail_out != 0) return true;
    }
  }

 private:
  std::string& m_png;
  z_stream m_stream{};
  std::array<unsigned char, 64 * 1024> m_out{};
  bool m_ok = false;
};

}  // namespace

Status write_framebuffer_png(const std::filesystem::path& path, int width, int height) {
  if (width <= 0 || height <= 0) return Error{path.string() + ": the window has no pixels to save"};
  const size_t row = static_cast<size_t>(width) * 3;
  std::string png("\x89PNG\r\n\x1a\n", 8);
  std::string header;
  put_u32(header, static_cast<uint32_t>(width));
  put_u32(header, static_cast<uint32_t>(height));
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, RGB, deflate, filter set 0, no interlace
  put_chunk(png, "IHDR", reinterpret_cast<const unsigned char*>(header.data()), header.size());

  // OpenGL's first row is the bottom one; PNG's is the top: bands are read
  // from the top down, and each band's rows are taken in reverse.
  std::vector<unsigned char> band(row * kBandRows);
  std::vector<unsigned char> filtered(1 + row);  // filter type 0 (none), then the row
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadBuffer(GL_BACK);
  IdatWriter idat(png);
  for (int top = height; top > 0; top -= kBandRows) {
    const int rows = std::min(kBandRows, top);
    glReadPixels(0, top - rows, width, rows, GL_RGB, GL_UNSIGNED_BYTE, band.data());
    for (int r = rows - 1; r >= 0; --r) {
      std::copy_n(band.data() + static_cast<size_t>(r) * row, row, filtered.data() + 1);
      const bool last = top - rows == 0 && r == 0;
      if (!idat.write(filtered.data(), filtered.size(), last))
        return Error{path.string() + ": could not encode the PNG"};
    }
  }
  put_chunk(png, "IEND", nullptr, 0);
  return write_file_atomically(path, png);
}

}  // namespace ks::studio
