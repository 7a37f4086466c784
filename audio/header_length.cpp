#include "audio/header_length.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "audio/format.hpp"
#include "audio/sndfile_log.hpp"

namespace halo::audio {
namespace {

// A writer on a pipe cannot go back to fill in its header's sizes, so it puts a stand-in for
// "unknown" there, and the file it made, kept, is whole: sox writes 0x7ffff000 in a WAV and a
// COMM count of 0x7f000000 bytes' worth in an AIFF, ffmpeg 0xffffffff (all ones in a W64 or an
// RF64's 64-bit sizes). Those are just below 2^31 or 2^32 bytes (2^64 in 64-bit sizes); any
// other size is a length, so a file of 2-4 GiB cut short is still found truncated.
bool stand_in_size(long long bytes, int container) {
  if (container == SF_FORMAT_W64 || container == SF_FORMAT_RF64) return bytes >= (1LL << 62);
  constexpr long long window = 1LL << 24;  // 16 MiB below each power of two
  return (bytes >= (1LL << 31) - window && bytes < (1LL << 31)) || (bytes >= (1LL << 32) - window && bytes < (1LL << 32));
}

// A NIST SPHERE header is text ("sample_count -i 48000" among its lines, up to "end_head"),
// which libsndfile reads without logging its count.
long long nist_sample_count(const std::string& path) {
  struct stat status {};
  if (path.empty() || stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) return -1;
  std::ifstream file(path, std::ios::binary);
  std::string header(4096, '\0');
  file.read(header.data(), static_cast<std::streamsize>(header.size()));
  header.resize(static_cast<std::size_t>(file.gcount()));
  header = header.substr(0, header.find("end_head"));
  const std::size_t key = header.find("\nsample_count -i ");
  return key == std::string::npos ? -1 : std::strtoll(header.c_str() + key + 17, nullptr, 10);
}

// The data bytes a WAV, AU or W64 header declares where libsndfile's log says they run past
// the end of the file ("data : 352800 (should be 176378)"); a W64's goes without a word in the
// log, so its size is read whatever the log says. `cut`: the log says the file is shorter than
// its header.
long long riff_like_data_bytes(const std::string& log, int container, long long declared_frames, long long frame_bytes,
                               bool cut) {
  long long data_bytes = container == SF_FORMAT_AU ? log_number(log, "Data Size") : log_number(log, "data");
  if (container == SF_FORMAT_W64 && data_bytes >= 24) {
    // W64 counts its chunk header (24 bytes) and pads the chunk to 8 bytes: in a whole file up
    // to 7 bytes past the frames are padding, not frames missing (in a cut one, they are not).
    data_bytes -= 24;
    if (!cut && frame_bytes > 0 && data_bytes - declared_frames * frame_bytes < 8) return -1;
  }
  return data_bytes;
}

// A block codec's frames in a WAV or W64 (IMA and MS ADPCM, GSM 6.10): the data chunk's whole
// blocks; the fact chunk's count only where the blocks cannot be counted (libsndfile's own
// writer puts half the frames in a stereo IMA WAV's fact chunk and 2^63 - 10001 in a W64's,
// and sox on a pipe one made from its stand-in size). None where the data size is a stand-in.
long long block_codec_frames(const std::string& log, long long data_bytes, int container) {
  if (data_bytes <= 0 || stand_in_size(data_bytes, container)) return -1;
  const long long block_align = log_number(log, "Block Align"), per_block = log_number(log, "Samples/Block");
  if (block_align > 0 && per_block > 0) return data_bytes / block_align * per_block;
  const long long fact = log_number(log, "frames");
  return fact > 0 && fact < (1LL << 40) ? fact : -1;
}

// Whether libsndfile's log says a chunk runs past the end of the file: "should be" on a size
// line (RIFF, data, AU's Data Size, FORM, SSND, BODY, ...; not sox's "Bytes/sec : 8111 (should be 8110)" of a
// whole IMA WAV), a COMM count "not equal" to what SSND holds, or "truncated".
bool log_says_cut_short(const std::string& log) {
  if (log.find("not equal") != std::string::npos || log.find("truncated") != std::string::npos) return true;
  for (std::size_t at = log.find("should be"); at != std::string::npos; at = log.find("should be", at + 1)) {
    const std::size_t line = log.rfind('\n', at) == std::string::npos ? 0 : log.rfind('\n', at) + 1;
    const std::string text = log.substr(line, at - line);
    for (const char* size : {"RIFF", "riff", "data", "Data Size", "FORM", "SSND", "BODY", "Riff size", "Data length"})
      if (text.find(size) != std::string::npos) return true;
  }
  return false;
}

// Whether a frame count is a stand-in's: sox's AIFF on a pipe counts 0x7f000000 bytes' worth
// of frames, rounded down, so with 3-, 6- or 12-byte frames the count times the frame falls
// just under the window.
bool stand_in_frames(long long frames, long long frame_bytes, int container) {
  return frame_bytes > 0 &&
         (stand_in_size(frames * frame_bytes, container) || stand_in_size(frames * frame_bytes + frame_bytes - 1, container));
}

}  // namespace

HeaderLength header_length(SNDFILE* file, const SF_INFO& info, const std::string& path) {
  HeaderLength length;
  // SF_COUNT_MAX is libsndfile's "not known" (an Ogg whose last page is missing): no count.
  if (info.frames == SF_COUNT_MAX) return length;
  length.declared = info.frames;
  const std::string log = log_of(file);
  const int container = info.format & SF_FORMAT_TYPEMASK;
  const long long frame_bytes = static_cast<long long>(fixed_sample_bytes(info.format)) * info.channels;
  const bool cut = log_says_cut_short(log);
  // The header's count, as frames or as data bytes (-1: none beyond libsndfile's own).
  long long frames = -1;
  long long data_bytes = -1;
  switch (container) {
    case SF_FORMAT_WAV:
    case SF_FORMAT_WAVEX:
    case SF_FORMAT_AU:
    case SF_FORMAT_W64:
      if (cut || container == SF_FORMAT_W64) data_bytes = riff_like_data_bytes(log, container, info.frames, frame_bytes, cut);
      if (frame_bytes == 0 && container != SF_FORMAT_AU) {  // a block codec: the data chunk's whole blocks
        const bool wav = container != SF_FORMAT_W64;
        const long long whole = block_codec_frames(log, wav ? log_number(log, "data") : data_bytes, container);
        // A WAV's data chunk of an odd length (libsndfile's own GSM 6.10 writer leaves out the
        // pad byte) makes libsndfile count one block more than the chunk holds, which it then
        // decodes from the bytes after it: junk up to full scale (a QA pass). Only the whole
        // blocks are read, as sox reads them.
        if (wav && whole > 0 && whole < info.frames) length.declared = length.present = whole;
        else if (cut) frames = whole;
      }
      break;
    case SF_FORMAT_CAF:  // the data chunk counts its 4-byte edit count; ALAC says its frames
      if (frame_bytes == 0) frames = log_number(log, "Valid frames");
      else if (const long long data = log_number(log, "data"); data > 4) data_bytes = data - 4;
      break;
    case SF_FORMAT_SVX:
      if (cut) data_bytes = log_number(log, "BODY");
      break;
    case SF_FORMAT_RF64: data_bytes = log_number(log, "Data size"); break;  // the ds64 chunk's
    case SF_FORMAT_AIFF:
      if (cut && (info.format & SF_FORMAT_SUBMASK) == SF_FORMAT_IMA_ADPCM) {
        // AIFC 'ima4': packets of 34 bytes a channel hold 64 frames; COMM counts packets.
        if (const long long ssnd = log_number(log, "SSND"); ssnd > 8) frames = (ssnd - 8) / (34LL * info.channels) * 64;
      } else if (cut) {
        frames = log_number(log, "Frames");
        if (stand_in_frames(frames, frame_bytes, container)) frames = -1;
      }
      break;
    case SF_FORMAT_AVR:
    case SF_FORMAT_MPC2K: frames = log_number(log, "Frames"); break;
    case SF_FORMAT_MAT4:
    case SF_FORMAT_MAT5:
      // The last matrix's columns: the samples, a row a channel. libsndfile reads on to the end
      // of the file, so a variable saved after them (scipy's savemat, MATLAB's save) had been
      // read as more frames, its header and all (a QA pass): only the matrix's are read.
      if (const long long columns = log_number(log, "Cols"); columns > 0 && columns < info.frames)
        length.declared = length.present = columns;
      else
        frames = columns;
      break;
    case SF_FORMAT_NIST: frames = nist_sample_count(path); break;
    case SF_FORMAT_VOC:  // the sound block's size, with its own header's bytes
      if (cut) {
        if (const long long extended = log_number(log, "Extended II"); extended > 12) data_bytes = extended - 12;
        else if (const long long sound = log_number(log, "Sound Data"); sound > 2) data_bytes = sound - 2;
      }
      break;
    case SF_FORMAT_WVE:  // "Data length 48000 should be 23984": bytes
      if (const std::size_t at = log.find("Data length "); at != std::string::npos && cut)
        data_bytes = std::strtoll(log.c_str() + at + 12, nullptr, 10);
      break;
    case SF_FORMAT_SDS:  // libsndfile counts the header's frames; its log, the blocks begun
      if (const long long begun = log_number(log, "Frames"); begun >= 0 && begun < info.frames) {
        // Only whole blocks are there: a 21-byte dump header, then packets of 127 bytes.
        const long long file_bytes = log_number(log, "Length");
        const long long per_block = log_number(log, "Samples/Block");
        const long long whole = file_bytes > 21 && per_block > 0 ? (file_bytes - 21) / 127 * per_block : begun;
        length.present = std::min(begun, whole);
      }
      break;
    default: break;
  }
  if (data_bytes > 0 && !stand_in_size(data_bytes, container) && frame_bytes > 0) frames = data_bytes / frame_bytes;
  if (frames > 0) length.declared = std::max<std::int64_t>(length.declared, frames);
  return length;
}

std::int64_t streamed_header_frames(const SF_INFO& info) {
  const int container = info.format & SF_FORMAT_TYPEMASK;
  if (container != SF_FORMAT_WAV && container != SF_FORMAT_WAVEX && container != SF_FORMAT_AIFF) return -1;
  const long long frame_bytes = static_cast<long long>(fixed_sample_bytes(info.format)) * info.channels;
  if (frame_bytes <= 0 || info.frames <= 0 || stand_in_frames(info.frames, frame_bytes, container)) return -1;
  if (info.frames * frame_bytes >= (1LL << 32)) return -1;  // more than a 32-bit size holds: not a header's
  return info.frames;
}

}  // namespace halo::audio
