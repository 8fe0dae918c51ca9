// How a demo shows a refused request: it makes the request, expects the
// library's typed error, and keeps it for the printed line and the trace. A
// request that is accepted stops the demo, since every printed refusal must
// be one the library actually made.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>

namespace demo {

/// The `Error` that `call` throws. Throws std::logic_error naming `request`
/// when `call` returns normally (the request should have been refused).
template <class Error>
Error refused(const std::string& request, const std::function<void()>& call) {
  try {
    call();
  } catch (const Error& error) {
    return error;
  }
  throw std::logic_error("the request '" + request + "' was accepted but must be refused");
}

}  // namespace demo
