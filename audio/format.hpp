#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace halo::audio {

// What a sound file holds. `container` and `subtype` are libsndfile's SF_FORMAT_* major and
// subtype codes; frames is -1 when unknown (a pipe).
struct Format {
  int rate_hz = 0;
  int channels = 0;
  int container = 0;
  int subtype = 0;
  std::int64_t frames = -1;
  // Which speaker each channel feeds (libsndfile's SF_CHANNEL_MAP_*), where the file says (a
  // WAVEX's channel mask, a CAF's layout, the order Ogg and FLAC define for 3 to 8 channels);
  // empty where it does not. An output keeps it, in the order its container holds it.
  std::vector<int> channel_map;
  // An output's channels where its container fixes another order than the input's (Vorbis's
  // 5.1 to WAV's, say; speaker_order.hpp): channel k written is the input's channel
  // channel_moves[k]. Empty: the input's order.
  std::vector<int> channel_moves;
};

// A headerless input (`-t raw`): what its header would have said. Samples interleaved, in the
// machine's byte order as libsndfile's raw format takes them (little-endian here). subtype 0:
// not raw, the file describes itself.
struct RawInput {
  int rate_hz = 0;
  int channels = 0;
  int subtype = 0;  // SF_FORMAT_PCM_16, SF_FORMAT_FLOAT, ... (parse_subtype)
};

std::string container_name(int container);  // "WAV", "FLAC", ...
std::string subtype_name(int subtype);      // "pcm16", "float", "vorbis", ...
// Bytes of one sample of a fixed-width subtype (pcm8 .. double, u-law, A-law); 0 for the
// compressed ones, whose size says nothing of their frames.
int fixed_sample_bytes(int subtype);

// Whether libsndfile writes this container down a pipe as a whole file: AU, raw, IRCAM, AVR and
// Ogg. Of the others it refuses WAV, CAF, W64 and RF64 there itself, writes AIFF's and PAF's
// headers and then fails, writes an SDS whose header counts no frames, and FLAC and MP3
// complete their headers at the end (junk on a pipe). pipe_refusal: the words for one.
bool writes_to_a_pipe(int container);
// PAF at 24 bits (`format`: container | subtype), where libsndfile has faults of its own: it
// codes blocks of 10 frames, writes files of up to 10 frames that read back empty, and reads 3,
// 5 or 6 channels wrong through its float path (QA passes).
bool is_paf24(int format);
// Whether libsndfile writes this container front to back, never going back to complete a
// header: raw and Ogg, which a file open for appending (`>>`) takes as they are.
bool writes_front_to_back(int container);
std::string pipe_refusal(int container);

// `text` in lower case (ASCII): the names halo takes in any case.
std::string lower(std::string text);

// The highest sample rate halo takes anywhere: --rate, a raw input's, a mask file's `# rate`.
constexpr double max_rate_hz = 10e6;

// A file name's extension, lower case, without the dot; "" when it has none.
std::string lower_extension(const std::string& path);

// The container libsndfile writes for a file name's extension, 0 when none matches.
int container_for_extension(const std::string& path);

// "pcm16|pcm24|pcm32|float|double" (also pcm8, ulaw, alaw, vorbis, opus) → SF_FORMAT_*;
// throws audio::Error saying which names there are (the CLI adds its flag, --subtype).
int parse_subtype(const std::string& text);

// How samples of a subtype are scaled on the way out. Integer PCM is written from the raw
// integer value (libsndfile reads pcm16 as v / 32768 but writes float * 32767, so a round
// trip through normalised floats is not exact; we scale by full_scale ourselves).
struct SampleScale {
  double full_scale = 1.0;  // float value 1.0 maps to this; 32768 for pcm16
  double lowest = -1.0;     // smallest value that fits, in output units
  double highest = 1.0;     // largest value that fits, in output units
  bool integer = false;     // rounded here and written as whole numbers (Writer: ints at 32-bit full scale)
  bool clips = true;        // false for float and double: nothing is clipped or counted
};
SampleScale sample_scale(int subtype);

}  // namespace halo::audio

namespace halo::audio {

// The format an output gets: the input's rate and channels; the container named by the
// output's extension (the input's when it has none, or for "-"); the input's subtype, or
// `subtype` when non-zero. Where the container cannot hold the input's subtype, the nearest
// that it can (float, then pcm24, pcm16, vorbis, opus). A lossy input (MP3, Vorbis, Opus)
// keeps its codec only in its own container; elsewhere it gets pcm16, as sox writes decoded
// MP3. Throws audio::Error when none fits.
// `container` (non-zero) overrides the extension (`--type`). `frames`: the frames OUT will hold
// where known (-1 where not), for the layouts libsndfile writes wrong at odd lengths only
// (format_probe.hpp); the result's frames is set to it.
Format output_format(const Format& input, const std::string& output_path, int subtype, int container = 0,
                     std::int64_t frames = -1);

// Whether a WAV of `format` (format.frames frames; -1: not known) may pass 4 GiB, where the
// 32-bit sizes in its header wrap and every reader sees a fraction of the audio. The Writer
// then writes RF64, the 64-bit WAV (turned back into plain WAV at close when the length was
// not known and stayed small).
bool wav_may_outgrow(const Format& format);

// The most sample bytes a container's header can count (its sizes 32-bit: AIFF, IFF, MAT, PAF,
// AVR, HTK), past which they wrap and readers see a fraction of the audio; 0 where none
// (WAV turns RF64 instead; CAF, W64, RF64, FLAC, Ogg, raw, IRCAM, NIST and AU, whose size
// libsndfile writes as unknown past 2 GiB, hold any length).
std::uint64_t container_byte_limit(int container);
// format.frames' sample bytes (the widest, double, for a subtype of no fixed size), 0 when not
// known (-1 frames).
std::uint64_t sample_bytes_of(const Format& format);

// Refuses a folder as OUT, before any work: a matter of files (exit 1, as design -o, ir fix and
// wisdom --file refuse one), where check_output_name's are the command line's.
void check_output_is_no_folder(const std::string& path);

// Refuses, before any work, an output name that cannot end well: empty; an extension that
// names no container halo writes (unless `container`, from --type, names one); an extension
// that names another container than `container`. Names without an extension
// (devices, FIFOs) and "-" pass. Throws audio::Error naming the path.
void check_output_name(const std::string& path, int container);

// Refuses, before any work, a FIFO OUT for a container that cannot go down a pipe (`--type
// flac`, or a FIFO named x.wav): opening the FIFO would first wait for a reader, and only then
// be refused. Not a usage error: like `--type flac` on standard output it depends on where OUT
// goes (exit 1; it had been 2 here and 1 there, a QA pass). With neither --type nor an
// extension the container is IN's, known later: the Writer asks again.
void check_output_pipe(const std::string& path, int container);

// Refuses a --subtype that OUT's container (from --type, else from the name; unknown: nothing to
// check) holds at no rate or channel count (vorbis in a WAV, float in a FLAC): known before any
// work. Whether it holds this input's rate and channels is output_format's to say. Throws Error.
void check_output_subtype(const std::string& path, int container, int subtype);

}  // namespace halo::audio
