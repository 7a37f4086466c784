#ifndef G
#define G
#define N 3
#if 0
float x[] = {9};
#elif 1
static const float h[N] = {0.5f, 010, 0x1p-2f};
#endif
static const bool h_causal = true;
#endif
