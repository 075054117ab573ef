#include "app/studio/viewport/gl_program.h"

#include <glad/gl.h>

#include <algorithm>
#include <string>

#include "keystream/io/file_io.h"

namespace ks::studio {

namespace {

std::filesystem::file_time_type modified(const std::filesystem::path& file) {
  std::error_code ec;
  const std::filesystem::file_time_type time = std::filesystem::last_write_time(file, ec);
  return ec ? std::filesystem::file_time_type{} : time;
}

std::string info_log(GLuint object, bool is_program) {
  GLint length = 0;
  if (is_program) {
    glGetProgramiv(object, GL_INFO_LOG_LENGTH, &length);
  } else {
    glGetShaderiv(object, GL_INFO_LOG_LENGTH, &length);
  }
  std::string log(static_cast<size_t>(std::max(length, 1)), '\0');
  if (is_program) {
    glGetProgramInfoLog(object, length, nullptr, log.data());
  } else {
    glGetShaderInfoLog(object, length, nullptr, log.data());
  }
  while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
  return log;
}

// Compiles one stage; 0 and `error` set on failure.
GLuint compile(GLenum stage, const std::filesystem::path& file, std::string& error) {
  Result<std::string> read = read_file(file);
  if (!read) {
    error = read.error();
    return 0;
  }
  const std::string& text = read.value();
  const GLuint shader = glCreateShader(stage);
  const char* source = text.c_str();
  const GLint length = static_cast<GLint>(text.size());
  glShaderSource(shader, 1, &source, &length);
  glCompileShader(shader);
  GLint ok = GL_FALSE;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (ok != GL_TRUE) {
    error = file.string() + ": does not compile:\n" + info_log(shader, false);
    glDeleteShader(shader);
    return 0;
  }
  return shader;
}

}  // namespace

GlProgram::GlProgram(std::filesystem::path vertex_file, std::filesystem::path fragment_file)
    : m_vertex_file(std::move(vertex_file)), m_fragment_file(std::move(fragment_file)) {}

GlProgram::~GlProgram() {
  if (m_program != 0) glDeleteProgram(m_program);
}

bool GlProgram::reload_if_changed() {
  if (m_attempted && modified(m_vertex_file) == m_vertex_time && modified(m_fragment_file) == m_fragment_time) {
    return false;
  }
  return reload();
}

bool GlProgram::reload() {
  m_attempted = true;
  m_vertex_time = modified(m_vertex_file);
  m_fragment_time = modified(m_fragment_file);
  std::string error;
  const GLuint vertex = compile(GL_VERTEX_SHADER, m_vertex_file, error);
  const GLuint fragment = vertex != 0 ? compile(GL_FRAGMENT_SHADER, m_fragment_file, error) : 0;
  GLuint program = 0;
  if (vertex != 0 && fragment != 0) {
    program = glCreateProgram();
    glAttachShader(program, vertex);
    glAttachShader(program, fragment);
    glLinkProgram(program);
    GLint ok = GL_FALSE;
    glGetProgramiv(program, GL_LINK_STATUS, &ok);
    if (ok != GL_TRUE) {
      error = m_vertex_file.filename().string() + " + " + m_fragment_file.filename().string() +
              " (in " + m_vertex_file.parent_path().string() + "): do not link:\n" + info_log(program, true);
      glDeleteProgram(program);
      program = 0;
    }
  }
  if (vertex != 0) glDeleteShader(vertex);
  if (fragment != 0) glDeleteShader(fragment);
  if (program == 0) {
    m_error = error;  // the last good program stays in use
    return false;
  }
  if (m_program != 0) glDeleteProgram(m_program);
  m_program = program;
  m_error.clear();
  return true;
}

int GlProgram::uniform(const char* name) const {
  return m_program != 0 ? glGetUniformLocation(m_program, name) : -1;
}

}  // namespace ks::studio
