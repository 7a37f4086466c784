#include "audio/stated_rate.hpp"

#include <string>

#include "audio/sndfile_log.hpp"

namespace halo::audio {

bool states_its_rate(SNDFILE* file, const SF_INFO& info) {
  if ((info.format & SF_FORMAT_TYPEMASK) != SF_FORMAT_MAT5) return true;
  // libsndfile logs the rate it read as "Val  : 48000.000000"; a file without one, no such line.
  return log_of(file).find("Val  :") != std::string::npos;
}

}  // namespace halo::audio
