#pragma once
// Result<T>: a value or an error message, the return type of every stage that
// can refuse its input. The core's public API never throws; bad input (files,
// settings) comes back as an Error whose message names what is wrong.

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace ks {

/// A refusal: a message for a person, naming the file or setting and the problem.
struct Error {
  std::string message;
};

/// Either a T or an Error. Access the value only after checking ok().
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : m_state(std::in_place_index<0>, std::move(value)) {}
  Result(Error error) : m_state(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return m_state.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(m_state);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(m_state);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(m_state));
  }
  /// The error message; empty when ok().
  const std::string& error() const {
    static const std::string kNone;
    return ok() ? kNone : std::get<1>(m_state).message;
  }

 private:
  std::variant<T, Error> m_state;
};

/// Result of a check or an action that produces nothing but can fail.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : m_error(std::move(error.message)), m_failed(true) {}

  bool ok() const { return !m_failed; }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return m_error; }

 private:
  std::string m_error;
  bool m_failed = false;
};

using Status = Result<void>;

}  // namespace ks
