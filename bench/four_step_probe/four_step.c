// The four steps against FFTW's estimated plan of the whole length (bench/results/cpu_fft_sizes.md,
// twenty-fifth session): N = N1 x N2 complex points, N2 transforms of N1 points down the columns
// (stride N2), the twiddles W_N^(k1 n2), N1 transforms of N2 points along the rows; checked against
// FFTW's own plan (bins k1 + N1 k2 at k1 N2 + k2), then timed. Built and run by compare.sh.
#include <fftw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int c,char**v){int N1=atoi(v[1]),N2=atoi(v[2]);int n=N1*N2;
 fftwf_complex*a=fftwf_alloc_complex(n);fftwf_complex*tw=fftwf_alloc_complex(n);
 /* columns: N2 transforms of N1 points, stride N2 */
 fftwf_plan cols=fftwf_plan_many_dft(1,&N1,N2,a,NULL,N2,1,a,NULL,N2,1,FFTW_FORWARD,FFTW_ESTIMATE);
 fftwf_plan rows=fftwf_plan_many_dft(1,&N2,N1,a,NULL,1,N2,a,NULL,1,N2,FFTW_FORWARD,FFTW_ESTIMATE);
 for(int k1=0;k1<N1;k1++)for(int n2=0;n2<N2;n2++){double ang=-2*M_PI*(double)k1*n2/n;tw[k1*N2+n2][0]=cos(ang);tw[k1*N2+n2][1]=sin(ang);}
 for(int i=0;i<n;i++){a[i][0]=rand()/(float)RAND_MAX;a[i][1]=0;}
 /* check against a plain plan */
 fftwf_complex*b=fftwf_alloc_complex(n);for(int i=0;i<n;i++){b[i][0]=a[i][0];b[i][1]=a[i][1];}
 fftwf_plan ref=fftwf_plan_dft_1d(n,b,b,FFTW_FORWARD,FFTW_ESTIMATE);fftwf_execute(ref);
 fftwf_execute(cols);for(int i=0;i<n;i++){float re=a[i][0]*tw[i][0]-a[i][1]*tw[i][1],im=a[i][0]*tw[i][1]+a[i][1]*tw[i][0];a[i][0]=re;a[i][1]=im;}fftwf_execute(rows);
 double err=0,mag=0;for(int k1=0;k1<N1;k1++)for(int k2=0;k2<N2;k2++){int k=k1+N1*k2;double dr=a[k1*N2+k2][0]-b[k][0],di=a[k1*N2+k2][1]-b[k][1];err+=dr*dr+di*di;mag+=b[k][0]*b[k][0]+b[k][1]*b[k][1];}
 printf("rel err %.2e\n",sqrt(err/mag));
 for(int i=0;i<n;i++){a[i][0]=rand()/(float)RAND_MAX*1e-3;a[i][1]=0;}
 double best=1e9;for(int r=0;r<7;r++){int k=0;double t=now();do{fftwf_execute(cols);for(int i=0;i<n;i++){float re=a[i][0]*tw[i][0]-a[i][1]*tw[i][1],im=a[i][0]*tw[i][1]+a[i][1]*tw[i][0];a[i][0]=re;a[i][1]=im;}fftwf_execute(rows);k++;}while(now()-t<0.05);double e=(now()-t)/k;if(e<best)best=e; for(int i=0;i<n;i++){a[i][0]=rand()/(float)RAND_MAX*1e-3;a[i][1]=0;}}
 printf("N=%d (%dx%d) four-step exec %.1f us\n",n,N1,N2,best*1e6);
 double bc=1e9,br=1e9;for(int r=0;r<5;r++){int k=0;double t=now();do{fftwf_execute(cols);k++;}while(now()-t<0.03);double e=(now()-t)/k;if(e<bc)bc=e;k=0;t=now();do{fftwf_execute(rows);k++;}while(now()-t<0.03);e=(now()-t)/k;if(e<br)br=e;}
 printf("  cols %.1f us rows %.1f us\n",bc*1e6,br*1e6);}
