#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "audio/atomic_file.hpp"
#include "audio/checked_output.hpp"
#include "audio/format.hpp"
#include "audio/sndfile_handle.hpp"

namespace halo::audio {

// Writes interleaved float frames to any format libsndfile writes ("-" = standard output).
//
// Nothing lost: the file goes through an AtomicFile (a temporary beside a regular target,
// renamed over it only by commit(); devices and pipes directly); a Writer destroyed without
// commit() (an error, Ctrl-C) removes the temporary and leaves any existing target untouched.
//
// Samples beyond what the subtype holds are clipped and counted (as sox reports them);
// float and double are written as they are. NaN and Inf are never written: counted
// (nonfinite_samples), then 0 in float output, clipped in integer output (NaN as 0, counted as clipped).
//
// What a Writer may do to the samples on the way out (the library's default: nothing).
struct WriteOptions {
  // TPDF dither of ±1 LSB before rounding, on integer subtypes below 24 bits (pcm8, pcm16),
  // as sox does. Each sample's dither is a hash of (frame index, channel) with a fixed seed:
  // a run is reproducible, and how the frames arrive in chunks changes no sample.
  bool dither = false;
  // > 0: scale the whole output so that its peak |sample| is this (linear; 0.891 for -1 dBFS).
  // Two passes: write() spools float32 to an unlinked temporary in $TMPDIR (or /tmp) and
  // measures the peak; commit() rescales while converting. Works for pipes; needs 4 bytes of
  // temporary space per sample. Clipping after the scaling is not counted.
  double norm_peak = 0;
};

class Writer {
 public:
  // max_chunk_frames sizes the conversion buffer once. format.frames: how many frames will be
  // written, -1 when not known; a WAV that may pass 4 GiB is written as RF64 (see note()).
  Writer(const std::string& path, const Format& format, std::size_t max_chunk_frames,
         const WriteOptions& options = {});
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  void write(const float* interleaved, std::size_t frames);
  // Closes (checking libsndfile's close, which writes the final header, then the descriptor's)
  // and renames into place. --norm's second pass (the whole output, rescaled) asks `stop` before
  // each chunk and throws Error("interrupted") when it says so, as the first pass stops.
  void commit(const std::function<bool()>& stop = {});
  // With norm_peak, before commit(): an output whose peak is at or below `floor` is the engines'
  // float32 rounding, not signal (an FFT engine's 1e-8 where the exact output is 0: --norm had
  // raised it 151 dB to full scale, a QA pass), and is left as it is (norm_found_noise()).
  // The caller knows the level that rounding is relative to only once the input has been read.
  // 0 (the default): none.
  void set_norm_noise_floor(double floor) { norm_noise_floor_ = floor; }

  std::uint64_t clipped_samples() const { return clipped_samples_; }
  // Samples that fit but that the dither carried past full scale, held there: not counted as
  // clipped (nothing of the signal was lost), but said, as sox says "dither clipped".
  std::uint64_t dither_held_samples() const { return dither_held_samples_; }
  // After commit() with norm_peak: the gain --norm applied (linear; 1 where the output was
  // silent, with nothing to scale: norm_found_silence()).
  double norm_gain() const { return norm_gain_; }
  bool norm_found_silence() const { return norm_found_silence_; }
  // After commit() with norm_peak: the output's peak was at or below the noise floor (not 0),
  // and nothing was scaled; its peak is norm_noise_peak().
  bool norm_found_noise() const { return norm_found_noise_; }
  double norm_noise_peak() const { return spool_peak_; }
  // After commit(): the container written (RF64 where a WAV outgrew 4 GiB) and a line for the
  // user saying so (empty when there is nothing to say).
  int container() const { return format_.container; }
  const std::string& note() const { return note_; }
  // NaN or Inf samples given to write(): written as 0 (float output) or clipped (NaN as 0).
  std::uint64_t nonfinite_samples() const { return nonfinite_samples_; }
  std::size_t max_chunk_frames() const { return max_chunk_frames_; }
  // Metadata strings (SF_STR_TITLE, ... with their text) to write with the audio, as sox copies
  // them; call before the first write(). A container without such a field drops it.
  void copy_strings(const std::vector<std::pair<int, std::string>>& strings);

 private:
  void discard() noexcept;
  // Scales by `gain`, dithers, clips and rounds as the subtype needs, and writes.
  void convert_and_write(const float* interleaved, std::size_t frames, double gain);
  void convert_and_write_piece(const float* interleaved, std::size_t frames, double gain);  // of piece_frames_ at most
  void spool(const float* interleaved, std::size_t frames);  // --norm's first pass

  std::string path_;                  // the target the user named; "-" for standard output
  std::optional<AtomicFile> output_;  // the file's descriptor; none for standard output
  std::optional<CheckedOutput> sink_; // every byte's write checked; none for a pipe
  bool wav_as_rf64_ = false;          // a WAV opened as RF64 that libsndfile downgrades when small
  std::string note_;                  // see note()
  void note_padding();
  void add_note(const std::string& line);  // joins note_'s lines with "; "
  Format format_;
  SampleScale scale_;
  SndfileHandle file_;                // declared after output_: closed before its descriptor
  std::vector<double> converted_;  // one piece in output units, for integer and clipped subtypes
  std::vector<int> converted_int_;  // integer subtypes: the same piece at 32-bit full scale, as written
  std::vector<float> moved_;  // one chunk in OUT's speaker order, where it is not IN's (Format::channel_moves)
  std::size_t max_chunk_frames_;
  // What one conversion takes: a chunk in pieces of at most 2^20 samples, so that the buffers
  // above stay within the pipeline's budget a buffer (a chunk of 1024 channels' integer output
  // had taken 96 MB of them, a QA pass).
  std::size_t piece_frames_;
  std::uint64_t clipped_samples_ = 0;
  std::uint64_t dither_held_samples_ = 0;  // see dither_held_samples()
  double norm_gain_ = 1;             // what commit()'s --norm pass scaled by
  bool norm_found_silence_ = false;  // that pass found no sample above 0
  bool norm_found_noise_ = false;    // ... only samples at or below norm_noise_floor_
  double norm_noise_floor_ = 0;      // set_norm_noise_floor()
  std::uint64_t nonfinite_samples_ = 0;
  bool committed_ = false;
  WriteOptions options_;
  bool dither_ = false;            // options_.dither, where the subtype wants it
  std::uint64_t frames_out_ = 0;   // frames converted so far: the dither's frame index
  // Layouts whose libsndfile encoder has written other samples than it was given (ALAC, PAF at
  // 24 bits: a QA pass): OUT is read back before it goes into place (verify_written), and
  // written_hash_ holds a hash of every integer given to the encoder so far, in order.
  bool verify_ = false;
  int descriptor_ = -1;  // OUT's, as libsndfile writes it (standard output's for "-")
  std::uint64_t written_hash_ = 0;
  void verify_written();
  int spool_fd_ = -1;              // --norm: the float32 copy of the output, unlinked
  double spool_peak_ = 0;          // --norm: largest finite |sample| spooled
};

}  // namespace halo::audio
