/* halo mask: lowpass 3000 Hz, 21 taps, hamming window, 48000 Hz
 * y[n] = sum_k h[k] x[n-k] (true convolution)
 * spec: {"band":"lowpass","cutoff_hz":3000.0,"method":"window","minimum_phase":false,"rate_hz":48000.0,"taps":21,"window":"hamming"}
 * measured: {"attenuation_db":52.090824008595774,"bands":[{"attenuation_db":52.090824008595774,"gain":0.0,"high_hz":24000.0,"low_hz":7571.428571428572,"max_gain":0.002485757735431489,"min_gain":1.0644133284045007e-07,"weight":1.0}],"delay_ms":0.20833333333333334,"delay_samples":10.0,"grid_points":8193,"met":null,"method":"window","minus_3db_hz":[2287.5759473297016],"minus_6db_hz":[3153.130382491654],"phase":"linear","rate_hz":48000.0,"ripple_db":null,"taps":21,"window":"hamming","worst_case_gain":1.013679035473615,"worst_case_gain_db":0.11800929346471967}
 */
#ifndef HALO_MASK_DESIGN_H
#define HALO_MASK_DESIGN_H

static const double design_rate_hz = 48000;
static const unsigned design_taps = 21;
static const float design[21] = {
  -0.0019314549f, -0.0014882981f, 8.773188e-19f, 0.0050327037f, 0.016009033f, 0.03406816f,
  0.058227494f, 0.08521049f, 0.110110775f, 0.12772027f, 0.13408169f, 0.12772027f,
  0.110110775f, 0.08521049f, 0.058227494f, 0.03406816f, 0.016009033f, 0.0050327037f,
  8.773188e-19f, -0.0014882981f, -0.0019314549f
};

#endif
