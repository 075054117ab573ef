#include "app/studio/plots/plot_layer.h"

#include <backends/imgui_impl_opengl3.h>
#include <glad/gl.h>

#include <cmath>
#include <cstdint>

namespace ks::studio {

PlotLayer& PlotLayer::operator=(PlotLayer&& other) noexcept {
  if (this == &other) return *this;
  // The GL objects move; a layer moved over keeps none of its own (moves
  // happen while the studio sets up, before any is made).
  delete m_list;
  m_list = other.m_list;
  m_origin = other.m_origin;
  m_size = other.m_size;
  m_texture = other.m_texture;
  m_framebuffer = other.m_framebuffer;
  m_width = other.m_width;
  m_height = other.m_height;
  m_key = other.m_key;
  m_valid = other.m_valid;
  m_usable = other.m_usable;
  other.m_list = nullptr;
  other.m_texture = other.m_framebuffer = 0;
  other.m_valid = false;
  return *this;
}

bool PlotLayer::holds(uint64_t key, ImVec2 size) const {
  return m_valid && m_key == key && static_cast<int>(std::lround(size.x)) == m_width &&
         static_cast<int>(std::lround(size.y)) == m_height;
}

ImDrawList* PlotLayer::begin(ImVec2 origin, ImVec2 size) {
  if (m_list == nullptr) m_list = new ImDrawList(ImGui::GetDrawListSharedData());
  m_list->_ResetForNewFrame();
  m_list->Flags = ImGui::GetWindowDrawList()->Flags;  // the window's anti-aliasing
  m_list->PushTextureID(ImGui::GetIO().Fonts->TexID);
  m_list->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y));
  m_origin = origin;
  m_size = size;
  return m_list;
}

bool PlotLayer::make_target(int width, int height) {
  if (m_texture == 0) glGenTextures(1, &m_texture);
  if (m_framebuffer == 0) glGenFramebuffers(1, &m_framebuffer);
  GLint texture_before = 0;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &texture_before);
  glBindTexture(GL_TEXTURE_2D, m_texture);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  // Shown 1:1 on whole pixels: no filtering to blur it.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(texture_before));
  GLint framebuffer_before = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_before);
  glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, m_texture, 0);
  const bool complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_before));
  m_width = width;
  m_height = height;
  return complete;
}

bool PlotLayer::render(uint64_t key) {
  m_valid = false;
  const int width = static_cast<int>(std::lround(m_size.x)), height = static_cast<int>(std::lround(m_size.y));
  if (!m_usable || m_list == nullptr || width <= 0 || height <= 0) return false;
  if ((width != m_width || height != m_height || m_texture == 0) && !make_target(width, height)) {
    release();
    m_usable = false;
    return false;
  }
  ImDrawList* lists[] = {m_list};
  ImDrawData data;
  data.Valid = true;
  data.CmdLists = lists;
  data.CmdListsCount = 1;
  data.TotalVtxCount = m_list->VtxBuffer.Size;
  data.TotalIdxCount = m_list->IdxBuffer.Size;
  data.DisplayPos = m_origin;
  data.DisplaySize = ImVec2(static_cast<float>(width), static_cast<float>(height));
  data.FramebufferScale = ImVec2(1.f, 1.f);
  GLint framebuffer_before = 0;
  glGetIntegerv(GL_FRAMEBUFFER_BINDING, &framebuffer_before);
  GLboolean scissor_before = glIsEnabled(GL_SCISSOR_TEST);
  GLfloat clear_before[4];
  glGetFloatv(GL_COLOR_CLEAR_VALUE, clear_before);
  glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer);
  glDisable(GL_SCISSOR_TEST);
  glClearColor(0.f, 0.f, 0.f, 0.f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(&data);  // backs up and restores the rest of the state it changes
  glBindFramebuffer(GL_FRAMEBUFFER, static_cast<GLuint>(framebuffer_before));
  glClearColor(clear_before[0], clear_before[1], clear_before[2], clear_before[3]);
  if (scissor_before) glEnable(GL_SCISSOR_TEST);
  m_key = key;
  m_valid = true;
  return true;
}

void PlotLayer::show(ImDrawList* into, ImVec2 origin) const {
  // The framebuffer's first row is the layer's bottom one: v runs upward.
  const ImTextureID texture = reinterpret_cast<ImTextureID>(static_cast<intptr_t>(m_texture));
  into->AddImage(texture, origin,
                 ImVec2(origin.x + static_cast<float>(m_width), origin.y + static_cast<float>(m_height)),
                 ImVec2(0.f, 1.f), ImVec2(1.f, 0.f));
}

void PlotLayer::release() {
  if (m_framebuffer != 0) glDeleteFramebuffers(1, &m_framebuffer);
  if (m_texture != 0) glDeleteTextures(1, &m_texture);
  m_framebuffer = m_texture = 0;
  m_width = m_height = 0;
  m_valid = false;
  delete m_list;
  m_list = nullptr;
}

}  // namespace ks::studio
