#pragma once
#include <functional>
#include <optional>
#include <string>

#include "audio/format.hpp"
#include "audio/reader.hpp"
#include "audio/writer.hpp"
#include "filters/mask.hpp"
#include "src/engine/handover_engine.hpp"
#include "src/engine/registry.hpp"
#include "src/offline/cancellation.hpp"
#include "src/offline/stream.hpp"

namespace halo {

struct FilterOptions {
  std::string engine = "auto";  // a name from engine_names()
  EngineOptions engine_options;
  StreamOptions stream;
  int subtype = 0;              // SF_FORMAT_* subtype for the output; 0 keeps the input's
  int container = 0;            // SF_FORMAT_* container; 0 follows the output's extension
  audio::WriteOptions write;    // dither, --norm
};

struct FilterReport {
  audio::Format input;
  audio::Format output;
  EngineChoice engine;
  double engine_start_s = 0;  // choosing, creating (CUDA context) and preparing the engine
  StreamResult stream;
  std::string output_note;    // a line the writer has for the user (a WAV written as RF64); may be empty
  double norm_gain = 1;           // with --norm: the gain it applied (linear), after the run
  bool norm_found_silence = false;  // with --norm: the output was silent, nothing scaled
  bool norm_found_noise = false;    // ... or float32 rounding noise alone (Writer::set_norm_noise_floor)
  double norm_noise_peak = 0;       // that noise's peak
  double norm_noise_reference = 0;  // ... and the level it is measured against: IN's peak x sum |h|
  std::string input_damage;   // with accept_short: the decoding error that ended the input early; else empty
  std::string input_partial_frame_note;  // a raw input's trailing bytes that make no whole frame, said; or empty
  std::int64_t input_streamed_declared_frames = -1;  // a piped WAV/AIFF's header length (Reader), else -1
  std::vector<std::pair<std::string, double>> engine_time_breakdown;  // Engine::time_breakdown()
  std::optional<HandoverReport> handover;  // when auto started on the CPU for a GPU to take over
};

// One `halo filter` run, as a library call: every command that filters a file goes through it.
// The input is opened (and checked) on construction, so a caller can design masks for its rate.
class FilterJob {
 public:
  // `raw`: the layout of a headerless input (-t raw); none by default.
  FilterJob(const std::string& input_path, const std::string& output_path, const audio::RawInput& raw = {});

  const audio::Format& input_format() const { return reader_.format(); }

  // Filters the whole input into the output. The engine is chosen, created and prepared on a
  // second thread while the first chunks are read; the report says which and why.
  // Nothing is left under the output's name unless the run succeeds.
  // `cancellation` stops it between chunks (halo::Error "interrupted"; nothing written).
  FilterReport run(const filters::MaskSet& masks, const FilterOptions& options, const Stream::Progress& progress,
                   const Cancellation& cancellation);

 private:
  audio::Reader reader_;
  std::string output_path_;
};

}  // namespace halo
