#pragma once
#include <string>

#include "audio/atomic_file.hpp"
#include "filters/mask.hpp"

namespace halo::audio {

// Mask files, chosen by extension:
//   .txt (or anything not below): text, one coefficient a line, '#' starts a comment,
//         several numbers on a line = one mask per column (per-channel masks), separated by
//         whitespace and/or single commas; every line the same column count; the rate from a
//         "# rate R Hz" comment (as write_mask writes it), else unknown (0); causal from an
//         "# align causal" comment (Mask::causal);
//   .f32: raw little-endian float32, one mask, rate unknown (0);
//   .json, .h, .hpp: the JSON and C-header exports of `halo design` (audio/mask_json_header.hpp),
//         their rate from the file;
//   .wav .flac .aif .aiff .aifc .au .snd .caf .w64 .rf64 .mat .ircam .sf .ogg .oga .opus .mp3
//         .voc ...: an impulse response read with libsndfile (any subtype it reads, as float),
//         one mask per channel, rate from the file.
// read_mask throws audio::Error naming the file (and line for text) and the reason:
// missing, empty, not a number, NaN/Inf, ragged columns, not a sound file, binary bytes in a
// text mask, more than 2^24 taps (checked while reading: 256 MiB of text, 64 MiB of .f32).
filters::MaskSet read_mask(const std::string& path);

// The same parsers over bytes already in memory (read_mask reads a text or .f32 file and hands
// its bytes to them; the fuzzer calls this): `name`'s extension picks the format and every
// message names it. Sound bytes go through libsndfile's virtual I/O, then read_mask's decoder.
filters::MaskSet parse_mask(const std::string& name, const std::string& bytes);

// The text a text mask file holds (write_mask's, below): a "# provenance" line per mask, "# rate
// R Hz" where known, "# align causal" for a causal mask, then a row per tap, a column per mask
// (a shorter one ending in zeros). design's standard output too, so that a mask piped into
// --mask - keeps its rate and alignment.
std::string mask_text(const filters::MaskSet& masks);

// Writes every mask of the set (equal lengths for multi-column/multi-channel output) in the
// format chosen by extension:
//   text: a "# provenance" line per mask (and "# rate R Hz" when known, "# align causal" for a
//         causal mask), then one row per tap, one column per mask, each float as %.9g (reads
//         back to the same float);
//   .f32: one mask only;
//   sound: float samples (exact) at the mask's rate (48000 when unknown) in .wav .aif(f/c)
//         .au .snd .caf .w64 .rf64 .mat .ircam .sf; .flac has no float samples, so 24-bit PCM
//         (within 2^-23; taps beyond [-1, 1] are refused). Lossy formats are refused. A causal
//         mask carries the comment "halo mask: align causal" where the container holds strings.
// Written through an AtomicFile (audio/atomic_file.hpp): a failure leaves nothing under path.
// Throws audio::Error naming the file.
void write_mask(const std::string& path, const filters::MaskSet& masks);
// The same into `output` (opened on `path`), not committed: for files that are renamed into
// place together once every one is written (an export's companions), so a failure changes none.
void write_mask_into(AtomicFile& output, const std::string& path, const filters::MaskSet& masks);

// The masks as `path`'s format holds them, for a report that describes the file written: FLAC's
// taps rounded to 24 bits (and clipped at full scale) as libsndfile writes them; every other
// format's unchanged (float32, or text that reads back to the same float). Throws as write_mask.
filters::MaskSet masks_as_written(const std::string& path, const filters::MaskSet& masks);

// Whether a mask file named `path` keeps a causal mask's alignment, so that --mask reads it back
// causal: text, JSON and C headers do, raw .f32 does not, and a sound container does where it
// holds the comment that says so (tried in memory, as masks_as_written does: CAF and WAV keep
// it, W64 does not). The file itself is not read: it may be a FIFO or a device.
bool keeps_alignment(const std::string& path);

// Whether a name's extension (lower case, without the dot; empty for none, as for ".mask")
// says what a mask file holds (.txt, .f32, .json, .h/.hpp, a sound format), or there is none;
// read_mask takes any other as text, write_mask's callers refuse it.
bool mask_extension_known(const std::string& extension);

// A sound format that cannot hold a mask exactly (.mp3, .ogg): write_mask would refuse the
// name. Throws audio::Error naming the file.
void check_mask_name(const std::string& path);

// What write_mask would refuse from the name alone (check_mask_name, a folder that does not
// exist), checked before any work. Throws audio::Error naming the file.
void check_mask_output(const std::string& path);

}  // namespace halo::audio
