// FFTW's plan of a complex transform of N points, in place: estimated (LIMIT 0) or measured
// within LIMIT seconds of planning (fftwf_set_timelimit); the plan's time and its transform's.
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int c,char**v){int n=atoi(v[1]);double lim=atof(v[2]);
 fftwf_complex*a=fftwf_alloc_complex(n);
 fftwf_set_timelimit(lim);
 double t0=now();fftwf_plan p=fftwf_plan_dft_1d(n,a,a,FFTW_FORWARD,lim>0?FFTW_MEASURE:FFTW_ESTIMATE);double tp=now()-t0;
 for(int i=0;i<n;i++){a[i][0]=rand()/(float)RAND_MAX;a[i][1]=0;}
 double best=1e9;for(int r=0;r<7;r++){int k=0;double t=now();do{fftwf_execute(p);k++;}while(now()-t<0.05);double e=(now()-t)/k; for(int i=0;i<n;i++){a[i][0]*=1.0f/n;a[i][1]*=1.0f/n;} if(e<best)best=e;}
 printf("n=%d limit %.3f: plan %.3f s, exec %.1f us\n",n,lim,tp,best*1e6);}
