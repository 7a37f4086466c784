#pragma once
#include <stdexcept>
#include <string>

namespace halo::filters {

// The Spec field a rejection is about. The library speaks of fields, never of command-line
// flags: a front end maps the field to whatever its user typed (the CLI: --lowpass, --taps...).
enum class Field {
  none,            // not one field: a mask or a response request
  rate_hz,         // Spec::rate_hz
  low_hz,          // Spec::low_hz of a lowpass/highpass: the cutoff
  edges,           // Spec::low_hz and Spec::high_hz of a bandpass/bandstop, written "low:high"
  taps,            // Spec::taps
  transition_hz,   // Spec::transition_hz
  attenuation_db,  // Spec::attenuation_db
  window,          // Spec::window
  method,          // Spec::method
  bands,           // Spec::bands
  ripple_db,       // Spec::ripple_db
};

// The field's name as a message spells it: "rate_hz", "low_hz", "low_hz:high_hz", "taps", ...
inline const char* field_name(Field field) {
  switch (field) {
    case Field::none: return "";
    case Field::rate_hz: return "rate_hz";
    case Field::low_hz: return "low_hz";
    case Field::edges: return "low_hz:high_hz";
    case Field::taps: return "taps";
    case Field::transition_hz: return "transition_hz";
    case Field::attenuation_db: return "attenuation_db";
    case Field::window: return "window";
    case Field::method: return "method";
    case Field::bands: return "bands";
    case Field::ripple_db: return "ripple_db";
  }
  return "";
}

// Everything filters/ rejects: a spec out of range, a mask it cannot analyse. For a field,
// what() is "<field name> <detail>", e.g. "taps 0: the length must be in [1, 1048576]"; the
// detail starts with the value as given, and names any other field by its field name (the
// snake_case names above), so that a front end can put its own spelling in their place.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message) : std::runtime_error(message), detail_(message) {}
  Error(Field field, const std::string& detail)
      : std::runtime_error(std::string(field_name(field)) + " " + detail), field_(field), detail_(detail) {}

  Field field() const noexcept { return field_; }
  // Without the field's name: "0: the length must be in [1, 1048576]". what() when no field.
  const std::string& detail() const noexcept { return detail_; }

 private:
  Field field_ = Field::none;
  std::string detail_;
};

}  // namespace halo::filters
