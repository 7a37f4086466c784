#include "audio/sndfile_log.hpp"

#include <strings.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace halo::audio {

std::string log_of(SNDFILE* file) {
  std::string log(16384, '\0');
  sf_command(file, SFC_GET_LOG_INFO, log.data(), static_cast<int>(log.size()));
  log.resize(std::strlen(log.c_str()));
  return log;
}

long long log_number(const std::string& log, const std::string& key) {
  long long value = -1;
  for (std::size_t at = 0; at + key.size() <= log.size(); ++at) {
    if (at > 0 && log[at - 1] != ' ' && log[at - 1] != '\t' && log[at - 1] != '\n') continue;
    if (strncasecmp(log.c_str() + at, key.c_str(), key.size()) != 0) continue;
    std::size_t colon = at + key.size();
    while (colon < log.size() && log[colon] == ' ') ++colon;
    if (colon >= log.size() || log[colon] != ':') continue;
    char* after = nullptr;
    const long long number = std::strtoll(log.c_str() + colon + 1, &after, 10);
    // "0xFFFFFFFF" (RF64's data chunk) is no decimal count: strtoll would stop at its x.
    if (after != log.c_str() + colon + 1 && *after != 'x' && *after != 'X') value = number;
  }
  return value;
}

std::string error_words(SNDFILE* file) {
  const int code = sf_error(file);
  return code > 0 ? std::string(sf_strerror(file)) : "libsndfile's error " + std::to_string(code);
}

std::string error_number_words(int code) {
  return code > 0 ? std::string(sf_error_number(code)) : "libsndfile's error " + std::to_string(code);
}

}  // namespace halo::audio
