#include "audio/format_probe.hpp"

#include <sndfile.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>
#include <vector>

#include "audio/sndfile_handle.hpp"
#include "audio/sndfile_log.hpp"

namespace halo::audio {
namespace {

// Subtypes whose frames are exactly the samples written: a frame more or less is a fault. The
// block codecs pad their last block (and halo says so), the lossy ones add their own.
bool plain_samples(int subtype) {
  switch (subtype & SF_FORMAT_SUBMASK) {
    case SF_FORMAT_PCM_S8:
    case SF_FORMAT_PCM_U8:
    case SF_FORMAT_PCM_16:
    case SF_FORMAT_PCM_24:
    case SF_FORMAT_PCM_32:
    case SF_FORMAT_FLOAT:
    case SF_FORMAT_DOUBLE:
    case SF_FORMAT_ULAW:
    case SF_FORMAT_ALAW: return true;
    default: return false;
  }
}

// The in-memory file's descriptor, closed with the probe.
struct MemoryDescriptor {
  int fd;
  ~MemoryDescriptor() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

namespace {

// Writes `frames` frames of the layout into memory and reads them back: what differs, or
// nothing.
std::string probe(int container, int subtype, int rate_hz, int channels, sf_count_t frames) {
  const MemoryDescriptor memory{memfd_create("halo-layout-probe", MFD_CLOEXEC)};
  if (memory.fd < 0) return {};  // nowhere to try it: sf_format_check's word stands
  SF_INFO info{};
  info.samplerate = rate_hz;
  info.channels = channels;
  info.format = container | subtype;
  std::vector<float> samples(static_cast<std::size_t>(frames * channels));
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = 0.25f * std::sin(0.05f * static_cast<float>(i));
  {
    SndfileHandle out(sf_open_fd(memory.fd, SFM_WRITE, &info, SF_FALSE));
    if (!out) return std::string("libsndfile cannot write it (") + sf_strerror(nullptr) + ")";
    if (sf_writef_float(out.get(), samples.data(), frames) != frames)
      return std::string("libsndfile cannot write it (") + error_words(out.get()) + ")";
    const int closed = sf_close(out.release());  // its result: the header written last
    if (closed != 0)  // not sf_error_number(-1), which prints to standard output (writer.cpp)
      return std::string("libsndfile cannot finish it (") + error_number_words(closed) + ")";
  }
  if (lseek(memory.fd, 0, SEEK_SET) != 0) return {};
  SF_INFO back{};
  if ((container & SF_FORMAT_TYPEMASK) == SF_FORMAT_RAW) back = info;  // no header: read as it was written
  const SndfileHandle in(sf_open_fd(memory.fd, SFM_READ, &back, SF_FALSE));
  if (!in) return std::string("libsndfile cannot read back what it writes (") + sf_strerror(nullptr) + ")";
  if (back.samplerate != rate_hz)
    return "the file would say " + std::to_string(back.samplerate) + " Hz, not " + std::to_string(rate_hz);
  if (back.channels != channels)
    return "the file would hold " + std::to_string(back.channels) + " channels, not " + std::to_string(channels);
  if (plain_samples(subtype) && back.frames != frames) {
    const sf_count_t extra = back.frames - frames;
    return "libsndfile reads back " + std::to_string(std::llabs(extra)) + (std::llabs(extra) == 1 ? " frame " : " frames ") +
           (extra > 0 ? "more" : "fewer") + " than it writes" + (frames % 2 != 0 ? " at an odd length" : "");
  }
  return {};
}

}  // namespace

std::string layout_problem(int container, int subtype, int rate_hz, int channels, std::int64_t frames) {
  if ((subtype & SF_FORMAT_SUBMASK) == SF_FORMAT_OPUS && rate_hz != 8000 && rate_hz != 12000 && rate_hz != 16000 &&
      rate_hz != 24000 && rate_hz != 48000)
    return "Opus codes 8, 12, 16, 24 or 48 kHz";
  // A thousand frames: few enough that the probe takes some 10 ms at 1024 channels (a
  // 255-channel Vorbis one 100 ms, a review), and a multiple of PAF's 24-bit blocks of 10
  // frames, which pad any other length (as the block codecs' do; not what this probe is for).
  if (std::string found = probe(container, subtype, rate_hz, channels, 1000); !found.empty()) return found;
  // Then an odd length, where a container pads its data to whole 16-bit words: libsndfile's AIFF
  // counts an 8-bit, u-law or A-law mono file's pad byte as a frame (807 frames written, 808 in
  // its header; a QA pass). Not PAF, whose 24-bit blocks pad (above), and not where the file's
  // length is known to be even.
  const bool may_be_odd = frames < 0 || frames % 2 != 0;
  if (may_be_odd && plain_samples(subtype) && (container & SF_FORMAT_TYPEMASK) != SF_FORMAT_PAF)
    return probe(container, subtype, rate_hz, channels, 1001);
  return {};
}

}  // namespace halo::audio
