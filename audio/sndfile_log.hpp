#pragma once
#include <sndfile.h>

#include <string>

namespace halo::audio {

// libsndfile's log of an open file, or (null) of the last open that failed. The log is where
// libsndfile says what a header holds that it then overrides (a data size past the end of the
// file, a rate of 0), which its API does not tell.
std::string log_of(SNDFILE* file);

// The number after "KEY :" in the log, at the start of a line or after a blank within one
// (libsndfile puts two fields on a line for some containers: "Rows : 2    Cols : 48000"); KEY in
// any case. The last such number in the log, -1 when none.
long long log_number(const std::string& log, const std::string& key);

// libsndfile's words for a file's error, or for an error code (sf_close's), without asking it
// for a code outside its table: for a negative one (its Ogg writer's -1) sf_error_number and
// sf_strerror print "Not a valid error number (-1)." to standard output, into whatever a pipe
// there carries (a QA pass). Then: "libsndfile's error N". (Its table's upper end is not
// public; its own codes stay below it.)
std::string error_words(SNDFILE* file);
std::string error_number_words(int code);

}  // namespace halo::audio
