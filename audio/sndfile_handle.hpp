#pragma once
#include <sndfile.h>

#include <memory>

namespace halo::audio {

// Owns a SNDFILE*. The deleter ignores sf_close's result: it runs only on paths that are
// already failing; a Writer that succeeds closes explicitly and checks (see Writer::commit).
struct SndfileCloser {
  void operator()(SNDFILE* file) const noexcept { sf_close(file); }
};
using SndfileHandle = std::unique_ptr<SNDFILE, SndfileCloser>;

}  // namespace halo::audio
