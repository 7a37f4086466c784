#ifndef SAMPLEFILTER_H_
#define SAMPLEFILTER_H_
/*
FIR filter designed with
 http://t-filter.appspot.com
*/
#define FILTER_TAP_NUM 3
static float filter_taps[FILTER_TAP_NUM] = {
  0.1,
  0.2,
  0.3
};
#endif
