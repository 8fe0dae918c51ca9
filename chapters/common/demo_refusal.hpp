// How a demo shows a refused request: it makes the request, expects the
// library's typed error, and keeps it for the printed line and the trace. A
// request that is accepted stops the demo, since every printed refusal must
// be one the library actually made.
//
// KindRefusal is the other form (chapters 27 and 28): each request names the
// kind it must be refused with, and the printed line says per request
// whether that kind was thrown (`empty:true width:true`).
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "demo_trace.hpp"

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

/// One refused request as a demo prints and traces it.
template <class Error>
struct Rejection {
  std::string label;    ///< the printed line's label
  std::string request;  ///< what was asked, for the trace
  Error error;          ///< the typed error the library threw
  std::string printed;  ///< the printed line's text, built from the error's evidence
};

/// Makes `request` through `call` and keeps the error it must throw, with the
/// text `describe(error)` gives for the printed line (see refused()).
template <class Error, class Describe>
Rejection<Error> rejection(std::string label, std::string request,
                           const std::function<void()>& call, Describe describe) {
  Error error = refused<Error>(request, call);
  std::string printed = describe(error);
  return {std::move(label), std::move(request), std::move(error), std::move(printed)};
}

/// Prints `label: text` for each rejection, one line each.
template <class Error>
void print_rejections(std::ostream& out, const std::vector<Rejection<Error>>& rejections) {
  for (const Rejection<Error>& rejection : rejections) {
    out << rejection.label << ": " << rejection.printed << '\n';
  }
}

/// The trace's list of rejections: each one's request, error kind (its stable
/// kebab-case name), the fields `evidence(error)` adds (a JSON object), the
/// library's message and the printed text.
template <class Error, class Evidence>
Json rejections_json(const std::vector<Rejection<Error>>& rejections, Evidence evidence) {
  Json list = Json::array();
  for (const Rejection<Error>& rejection : rejections) {
    Json entry = {{"request", rejection.request},
                  {"kind", std::string(rejection.error.kind_name())}};
    const Json fields = evidence(rejection.error);  // named: items() must not outlive it
    for (const auto& [key, value] : fields.items()) entry[key] = value;
    entry["message"] = rejection.error.what();
    entry["printed"] = rejection.printed;
    list.push_back(std::move(entry));
  }
  return list;
}

/// One request that must be refused with `expected_kind`: what was thrown.
struct KindRefusal {
  std::string case_name{}, expected_kind{};
  std::string kind{}, message{};  ///< the thrown error's kebab-case kind and message; empty if none
  bool rejected = false;          ///< the expected kind was thrown
};

/// Makes the request through `call` and keeps the `Error` (a subclass of
/// llm::Error, or llm::Error itself) it throws; an accepted request, or an
/// error of another kind, is kept with rejected = false.
template <class Error>
KindRefusal kind_refusal(std::string case_name, std::string_view expected_kind,
                         const std::function<void()>& call) {
  KindRefusal refusal{std::move(case_name), std::string(expected_kind)};
  try {
    call();
  } catch (const Error& error) {
    refusal.kind = std::string(error.kind_name());
    refusal.message = error.what();
    refusal.rejected = error.kind_name() == expected_kind;
  }
  return refusal;
}

/// `query_rank:true batch:true`: each case and whether its kind was thrown.
inline std::string kind_refusals_text(const std::vector<KindRefusal>& refusals) {
  std::string text;
  for (const KindRefusal& refusal : refusals) {
    text +=
        (text.empty() ? "" : " ") + refusal.case_name + ':' + (refusal.rejected ? "true" : "false");
  }
  return text;
}

/// The trace's list: each case, the kind expected and thrown, the message.
inline Json kind_refusals_json(const std::vector<KindRefusal>& refusals) {
  Json list = Json::array();
  for (const KindRefusal& r : refusals) {
    list.push_back({{"case", r.case_name},
                    {"expected", r.expected_kind},
                    {"kind", r.kind},
                    {"message", r.message},
                    {"rejected", r.rejected}});
  }
  return list;
}

}  // namespace demo
