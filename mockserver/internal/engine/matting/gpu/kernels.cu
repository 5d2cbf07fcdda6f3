// Kernels of the GPU background-removal engine (package gpu).
//
// Built to PTX (kernels.ptx, embedded by the Go package) with `go generate`,
// which runs Debian's clang-19 without the CUDA toolkit:
//
//   clang-19 -x cuda --cuda-device-only --cuda-gpu-arch=sm_70 -nocudainc
//            -nocudalib -O3 -ffp-contract=off -S -o kernels.ptx kernels.cu
//
// Without the CUDA headers, the attributes are spelled out and thread ids
// come from the __nvvm_read_ptx_sreg_* builtins. Without libdevice there
// are no libm calls: sqrt and floor are LLVM builtins (sqrt.rn, cvt.rmi),
// exp is computed below in double precision. -ffp-contract=off keeps every
// multiply and add separately rounded, as in the Go reference (on amd64),
// so each kernel follows the CPU stage's float32 arithmetic operation by
// operation.
//
// Every kernel takes the element count n and runs a grid-stride loop, so
// any launch configuration covers the whole input (see launch.go).

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

typedef unsigned char u8;
typedef long long i64;

#define LUT_SIZE 4096

__device__ static inline i64 first_index(void) {
  return (i64)__nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
         __nvvm_read_ptx_sreg_tid_x();
}

__device__ static inline i64 grid_stride(void) {
  return (i64)__nvvm_read_ptx_sreg_nctaid_x() * __nvvm_read_ptx_sreg_ntid_x();
}

#define FOR_EACH(i, n) for (i64 i = first_index(); i < (n); i += grid_stride())

__device__ static inline int imin(int a, int b) { return a < b ? a : b; }
__device__ static inline int imax(int a, int b) { return a > b ? a : b; }
__device__ static inline float fminx(float a, float b) { return a < b ? a : b; }
__device__ static inline float fmaxx(float a, float b) { return a > b ? a : b; }
__device__ static inline float sq(float v) { return v * v; }

// Block-wide helpers of the kernels whose threads cooperate in a block
// (shared memory and __syncthreads): the block has nt threads, a power of
// two at most MAX_THREADS (launch.go's blockSize; the emulator runs one).
#define MAX_THREADS 256

__device__ static inline unsigned int thread_id(void) { return __nvvm_read_ptx_sreg_tid_x(); }
__device__ static inline unsigned int block_threads(void) { return __nvvm_read_ptx_sreg_ntid_x(); }
__device__ static inline unsigned int block_id(void) { return __nvvm_read_ptx_sreg_ctaid_x(); }
__device__ static inline unsigned int grid_blocks(void) { return __nvvm_read_ptx_sreg_nctaid_x(); }

// block_scan turns part[tid] (tid < nt, nt a power of two at most
// MAX_THREADS) into its inclusive prefix sum over the block (Hillis and
// Steele, in place: each step reads, synchronises, then writes). Every
// thread of the block must call it.
__device__ static void block_scan(unsigned int *part, unsigned int tid, unsigned int nt) {
  for (unsigned int off = 1; off < nt; off <<= 1) {
    unsigned int add = tid >= off ? part[tid - off] : 0u;
    __syncthreads();
    part[tid] += add;
    __syncthreads();
  }
}

// block_sum returns to every thread the sum of v over the block (a tree
// in part); every thread of the block must call it, and part is free
// again when it returns.
__device__ static unsigned int block_sum(unsigned int *part, unsigned int v, unsigned int tid, unsigned int nt) {
  part[tid] = v;
  __syncthreads();
  for (unsigned int s = nt / 2; s > 0; s >>= 1) {
    if (tid < s) part[tid] += part[tid + s];
    __syncthreads();
  }
  unsigned int sum = part[0];
  __syncthreads();
  return sum;
}

// lookup interpolates a colour table on [0,1] (matting's lookup).
__device__ static inline float lookup(const float *lut, float v) {
  if (v <= 0.0f) return lut[0];
  if (v >= 1.0f) return lut[LUT_SIZE];
  if (v != v) return v;
  float p = v * (float)LUT_SIZE;
  int i = (int)p;
  float f = p - (float)i;
  return lut[i] + (lut[i + 1] - lut[i]) * f;
}

// dexp is exp(x) in double precision: x = k·ln2 + r, |r| ≤ ln2/2, a
// degree-13 Taylor polynomial for e^r, scaled by 2^k through the exponent
// bits. Its error is a few units in the last place of a double, so the
// float32 result rounds as Go's math.Exp does (but for rare ties).
__device__ static double dexp(double x) {
  if (x != x) return x;
  if (x < -745.2) return 0.0;
  if (x > 709.7) return __builtin_inf();
  double k = __builtin_rint(x * 1.4426950408889634);
  double r = x - k * 6.93147180369123816490e-01;
  r = r - k * 1.90821492927058770002e-10;
  double p = 1.0 / 6227020800.0;       // 1/13!
  p = p * r + 1.0 / 479001600.0;       // 1/12!
  p = p * r + 1.0 / 39916800.0;        // 1/11!
  p = p * r + 1.0 / 3628800.0;         // 1/10!
  p = p * r + 1.0 / 362880.0;          // 1/9!
  p = p * r + 1.0 / 40320.0;           // 1/8!
  p = p * r + 1.0 / 5040.0;            // 1/7!
  p = p * r + 1.0 / 720.0;             // 1/6!
  p = p * r + 1.0 / 120.0;             // 1/5!
  p = p * r + 1.0 / 24.0;              // 1/4!
  p = p * r + 1.0 / 6.0;               // 1/3!
  p = p * r + 0.5;                     // 1/2!
  p = p * r + 1.0;
  p = p * r + 1.0;
  i64 ki = (i64)k;
  if (ki < -1020) {
    // subnormal result: scale in two steps
    p = p * __builtin_bit_cast(double, (i64)(1023 - 60) << 52);
    ki += 60;
  }
  return p * __builtin_bit_cast(double, (ki + 1023) << 52);
}

// downsample: each analysis pixel is the mean of an f×f block of the
// image (clipped at the right and bottom edges), sRGB in [0,1]
// (matting.newAnalysis).
extern "C" __global__ void downsample(const u8 *img, int W, int H, int stride,
                                      int f, int w, int h, float *srgb) {
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int cx = (int)(p % w), cy = (int)(p / w);
    int sy0 = cy * f, sy1 = imin(cy * f + f, H);
    int sx0 = cx * f, sx1 = imin(cx * f + f, W);
    unsigned int s0 = 0, s1 = 0, s2 = 0;
    for (int sy = sy0; sy < sy1; sy++) {
      const u8 *row = img + (i64)sy * stride;
      for (int sx = sx0; sx < sx1; sx++) {
        s0 += row[4 * sx];
        s1 += row[4 * sx + 1];
        s2 += row[4 * sx + 2];
      }
    }
    float cnt = (float)((sy1 - sy0) * (sx1 - sx0));
    srgb[3 * p] = (float)s0 / (255.0f * cnt);
    srgb[3 * p + 1] = (float)s1 / (255.0f * cnt);
    srgb[3 * p + 2] = (float)s2 / (255.0f * cnt);
  }
}

// median3: the optional preprocessing, a 3×3 per-channel median with
// clamped edges (matting.median3).
extern "C" __global__ void median3(const float *src, float *dst, int w, int h) {
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    for (int c = 0; c < 3; c++) {
      float win[9];
      int k = 0;
      for (int dy = -1; dy <= 1; dy++) {
        int yy = imin(imax(y + dy, 0), h - 1);
        for (int dx = -1; dx <= 1; dx++) {
          int xx = imin(imax(x + dx, 0), w - 1);
          win[k++] = src[3 * ((i64)yy * w + xx) + c];
        }
      }
      for (int i = 1; i < 9; i++) {
        float v = win[i];
        int j = i - 1;
        while (j >= 0 && win[j] > v) {
          win[j + 1] = win[j];
          j--;
        }
        win[j + 1] = v;
      }
      dst[3 * p + c] = win[4];
    }
  }
}

// lin_to_lab converts linear light to CIE L*a*b* (matting.linToLab) with
// the CPU's cube-root table, writing L*, a*, b* to lab[0..2].
__device__ static inline void lin_to_lab(const float *cbrtLUT, float r, float g, float b, float *lab) {
  float X = (0.4124f * r + 0.3576f * g + 0.1805f * b) / 0.95047f;
  float Y = 0.2126f * r + 0.7152f * g + 0.0722f * b;
  float Z = (0.0193f * r + 0.1192f * g + 0.9505f * b) / 1.08883f;
  float fx = lookup(cbrtLUT, X), fy = lookup(cbrtLUT, Y), fz = lookup(cbrtLUT, Z);
  lab[0] = 116.0f * fy - 16.0f;
  lab[1] = 500.0f * (fx - fy);
  lab[2] = 200.0f * (fy - fz);
}

// colour: sRGB to linear light and CIE L*a*b* (matting.toLin,
// matting.linToLab) with the CPU's tables.
extern "C" __global__ void colour(const float *srgb, float *lin, float *lab,
                                  int n, const float *linLUT,
                                  const float *cbrtLUT) {
  FOR_EACH(p, (i64)n) {
    float r = lookup(linLUT, srgb[3 * p]);
    float g = lookup(linLUT, srgb[3 * p + 1]);
    float b = lookup(linLUT, srgb[3 * p + 2]);
    lin[3 * p] = r;
    lin[3 * p + 1] = g;
    lin[3 * p + 2] = b;
    lin_to_lab(cbrtLUT, r, g, b, lab + 3 * p);
  }
}

// bgdist: the shadow-tolerant distance to a background field given on a
// grid of spacing step (matting.fieldInterp + matting.bgDistanceCPU).
extern "C" __global__ void bgdist(const float *lab, const float *grid, int w,
                                  int h, int gw, int step, float *dist,
                                  float *plain, u8 *shadowed) {
  i64 n = (i64)w * h;
  float inv = 1.0f / (float)step;
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    int gy = y / step, gx = x / step;
    float fy = (float)(y % step) * inv;
    float fx = (float)(x % step) * inv;
    i64 o00 = 3 * ((i64)gy * gw + gx);
    i64 o10 = o00 + 3;
    i64 o01 = o00 + 3 * (i64)gw;
    i64 o11 = o01 + 3;
    float q[3];
    for (int c = 0; c < 3; c++) {
      float top = grid[o00 + c] + (grid[o10 + c] - grid[o00 + c]) * fx;
      float bot = grid[o01 + c] + (grid[o11 + c] - grid[o01 + c]) * fx;
      q[c] = top + (bot - top) * fy;
    }
    float pl = lab[3 * p] + 16.0f, pa = lab[3 * p + 1], pb = lab[3 * p + 2];
    float ql = q[0] + 16.0f, qa = q[1], qb = q[2];
    float s = (pl * ql + pa * qa + pb * qb) / fmaxx(ql * ql + qa * qa + qb * qb, 1e-6f);
    if (s > 1.0f) {
      s = 1.0f;
    } else if (s < 0.585f) {
      s = 0.585f;
    }
    dist[p] = __builtin_sqrtf(sq(pl - s * ql) + sq(pa - s * qa) + sq(pb - s * qb));
    plain[p] = __builtin_sqrtf(sq(pl - ql) + sq(pa - qa) + sq(pb - qb));
    shadowed[p] = s < 0.97f ? 1 : 0;
  }
}

// Band statistics, 8 floats per entry (matting.StatsStride).
struct stats {
  float f[3], b[3], varF, varB;
};

#define SHADE_REG 0.03f
#define MIN_SHADE 0.6f
#define MIX_NOISE ((float)((6.0 / 255) * (6.0 / 255)))

// refine: the full-resolution alpha and, with spill, the decontaminated
// foreground (matting.refinePixels, interpStats, unmix, decontaminate).
// Pixels outside the band keep the coarse label and their colour.
extern "C" __global__ void refine(const u8 *img, int W, int H, int stride,
                                  int w, int h, int f, const u8 *mask,
                                  const u8 *band, const int *index,
                                  const float *statv, int spill, u8 *alpha,
                                  u8 *fg) {
  i64 n = (i64)W * H;
  float inv = 1.0f / (float)f;
  FOR_EACH(i, n) {
    int x = (int)(i % W), y = (int)(i / W);
    int cell = (y / f) * w + x / f;
    const u8 *px = img + (i64)y * stride + 4 * (i64)x;
    u8 *out = fg + 4 * i;
    if (!band[cell]) {
      alpha[i] = mask[cell] ? 255 : 0;
      if (spill) {
        out[0] = px[0];
        out[1] = px[1];
        out[2] = px[2];
        out[3] = 255;
      }
      continue;
    }
    // interpStats at analysis coordinates (u, v)
    float v = ((float)y + 0.5f) * inv - 0.5f;
    float u = ((float)x + 0.5f) * inv - 0.5f;
    int x0 = (int)__builtin_floorf(u), y0 = (int)__builtin_floorf(v);
    float fx = u - (float)x0, fy = v - (float)y0;
    struct stats st = {{0, 0, 0}, {0, 0, 0}, 0, 0};
    float m = 0, wsum = 0;
    for (int j = 0; j < 2; j++) {
      for (int k = 0; k < 2; k++) {
        int xx = imin(imax(x0 + k, 0), w - 1);
        int yy = imin(imax(y0 + j, 0), h - 1);
        float wt = (1 - fx) * (1 - fy);
        if (k == 1 && j == 0) {
          wt = fx * (1 - fy);
        } else if (k == 0 && j == 1) {
          wt = (1 - fx) * fy;
        } else if (k == 1 && j == 1) {
          wt = fx * fy;
        }
        int q = yy * w + xx;
        if (mask[q]) m += wt;
        int e = index[q];
        if (e < 0 || wt == 0) continue;
        const float *s = statv + 8 * (i64)e;
        for (int c = 0; c < 3; c++) {
          st.f[c] += wt * s[c];
          st.b[c] += wt * s[3 + c];
        }
        st.varF += wt * s[6];
        st.varB += wt * s[7];
        wsum += wt;
      }
    }
    if (wsum > 0 && wsum < 1) {
      for (int c = 0; c < 3; c++) {
        st.f[c] /= wsum;
        st.b[c] /= wsum;
      }
      st.varF /= wsum;
      st.varB /= wsum;
    }
    float I[3] = {(float)px[0] / 255.0f, (float)px[1] / 255.0f, (float)px[2] / 255.0f};
    float a = m;
    // unmix: I ≈ αF + (1-α)kB
    float ff = 0, fb = 0, bb = 0, fi = 0, bi = 0;
    for (int c = 0; c < 3; c++) {
      ff += st.f[c] * st.f[c];
      fb += st.f[c] * st.b[c];
      bb += st.b[c] * st.b[c];
      fi += st.f[c] * I[c];
      bi += st.b[c] * I[c];
    }
    float ks = 1;
    float a11 = ff + SHADE_REG, a12 = fb + SHADE_REG, a22 = bb + SHADE_REG;
    float det = a11 * a22 - a12 * a12;
    if (det > 1e-9f) {
      float al = ((fi + SHADE_REG) * a22 - a12 * (bi + SHADE_REG)) / det;
      float be = (a11 * (bi + SHADE_REG) - a12 * (fi + SHADE_REG)) / det;
      if (al < 0.999f) ks = fminx(fmaxx(be / (1 - al), MIN_SHADE), 1.0f);
    }
    float num = 0, den = 0;
    for (int c = 0; c < 3; c++) {
      float d = st.f[c] - ks * st.b[c];
      num += (I[c] - ks * st.b[c]) * d;
      den += d * d;
    }
    float ap = 0, res = 0;
    if (den > 1e-6f) {
      ap = fminx(fmaxx(num / den, 0.0f), 1.0f);
      for (int c = 0; c < 3; c++) {
        float e = I[c] - ks * st.b[c] - ap * (st.f[c] - ks * st.b[c]);
        res += e * e;
      }
      float conf = den / (den + st.varF + st.varB + 0.002f);
      conf *= (float)dexp((double)(-res / (2.0f * (MIX_NOISE + 0.25f * (st.varF + st.varB)))));
      a = conf * ap + (1 - conf) * m;
    }
    for (int c = 0; c < 3; c++) st.b[c] = st.b[c] * ks;
    if (a < 0.03f) {
      a = 0;
    } else if (a > 0.97f) {
      a = 1;
    }
    alpha[i] = (u8)(a * 255.0f + 0.5f);
    if (spill) {
      // decontaminate
      float t = fminx(fmaxx((a - 0.1f) / 0.5f, 0.0f), 1.0f);
      t = t * t * (3 - 2 * t);
      for (int c = 0; c < 3; c++) {
        float est = st.f[c];
        if (a > 0.05f) est = (I[c] - (1 - a) * st.b[c]) / a;
        float val = t * est + (1 - t) * st.f[c];
        if (a >= 1) val = I[c];
        out[c] = (u8)(fminx(fmaxx(val, 0.0f), 1.0f) * 255.0f + 0.5f);
      }
      out[3] = 255;
    }
  }
}

// subject_alpha is matting.subjectAlpha: the matte times the image's own
// alpha, rounded; without a matte the image's alpha.
__device__ static inline unsigned int subject_alpha(const u8 *fg, const u8 *matte, i64 p) {
  unsigned int a = matte ? matte[p] : 255u;
  return (a * fg[4 * p + 3] + 127u) / 255u;
}

// composite_transparent: the subject on transparency (matting.Composite,
// Transparent): colour where the subject shows, zero elsewhere. matte may
// be null (a fully opaque subject).
extern "C" __global__ void composite_transparent(const u8 *fg, const u8 *colours,
                                                 const u8 *matte, int n, u8 *out) {
  FOR_EACH(p, (i64)n) {
    unsigned int a = subject_alpha(fg, matte, p);
    if (a == 0) {
      out[4 * p] = 0;
      out[4 * p + 1] = 0;
      out[4 * p + 2] = 0;
      out[4 * p + 3] = 0;
      continue;
    }
    out[4 * p] = colours[4 * p];
    out[4 * p + 1] = colours[4 * p + 1];
    out[4 * p + 2] = colours[4 * p + 2];
    out[4 * p + 3] = (u8)a;
  }
}

__device__ static inline u8 clamp8(float v) {
  if (v <= 0) return 0;
  if (v >= 255) return 255;
  return (u8)(v + 0.5f);
}

// composite_color: the subject on a solid colour without shadow
// (matting.Composite, Color): αF + (1-α)B in 8-bit sRGB, opaque.
extern "C" __global__ void composite_color(const u8 *fg, const u8 *colours,
                                           const u8 *matte, int n, int r, int g,
                                           int b, u8 *out) {
  float bk[3] = {(float)r, (float)g, (float)b};
  FOR_EACH(p, (i64)n) {
    float a = (float)subject_alpha(fg, matte, p) / 255.0f;
    for (int c = 0; c < 3; c++) {
      out[4 * p + c] = clamp8(a * (float)colours[4 * p + c] + (1 - a) * bk[c]);
    }
    out[4 * p + 3] = 255;
  }
}

// cover_rows: the horizontal pass of an Image background's cover resize
// (matting.PlanCover, matting.coverResize): the nr source rows at src
// (sw pixels, stride bytes apart; the plan's rows RowLo..RowHi-1) filtered
// by the X taps (start, wts, ntaps per frame column) into three floats per
// frame column, each source pixel flattened onto white.
extern "C" __global__ void cover_rows(const u8 *src, int sw, int stride, int nr,
                                      int w, const int *start, const float *wts,
                                      int ntaps, float *tmp) {
  i64 n = (i64)nr * w;
  FOR_EACH(p, n) {
    int x = (int)(p % w), r = (int)(p / w);
    const u8 *row = src + (i64)r * stride;
    const float *wt = wts + (i64)x * ntaps;
    int st = start[x];
    float acc[3] = {0, 0, 0};
    for (int k = 0; k < ntaps; k++) {
      float t = wt[k];
      if (t == 0) continue;
      const u8 *px = row + 4 * (i64)imin(imax(st + k, 0), sw - 1);
      float a = (float)px[3] / 255.0f;
      for (int c = 0; c < 3; c++) acc[c] += t * ((float)px[c] * a + 255.0f * (1 - a));
    }
    tmp[3 * p] = acc[0];
    tmp[3 * p + 1] = acc[1];
    tmp[3 * p + 2] = acc[2];
  }
}

// cover_cols: the vertical pass of the cover resize: frame pixel (x,y)
// combines column x of the filtered rows with the Y taps of row y
// (source row r read from filtered row r-rowLo, both clamped), rounded
// to 8 bits, opaque.
extern "C" __global__ void cover_cols(const float *tmp, int w, int h, int sh,
                                      int rowLo, int nr, const int *start,
                                      const float *wts, int ntaps, u8 *out) {
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    const float *wt = wts + (i64)y * ntaps;
    int st = start[y];
    float acc[3] = {0, 0, 0};
    for (int k = 0; k < ntaps; k++) {
      float t = wt[k];
      if (t == 0) continue;
      int r = imin(imax(imin(imax(st + k, 0), sh - 1) - rowLo, 0), nr - 1);
      const float *q = tmp + 3 * ((i64)w * r + x);
      for (int c = 0; c < 3; c++) acc[c] += t * q[c];
    }
    for (int c = 0; c < 3; c++) out[4 * p + c] = clamp8(acc[c]);
    out[4 * p + 3] = 255;
  }
}

typedef unsigned long long u64;

// gen_hash is matting.genHash (uint64 arithmetic, wrapping).
__device__ static inline u64 gen_hash(i64 x, i64 y, u64 seed) {
  u64 h = (u64)x * 0x9E3779B97F4A7C15ull ^ (u64)y * 0xC2B2AE3D27D4EB4Full ^
          seed * 0x165667B19E3779F9ull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

// generate_enlarge: a generated background at full resolution
// (matting.Generate after matting.GenerateScene): the gw×gh scene (three
// floats per node) enlarged bilinearly by f, times 255, plus the hash
// dither seeded by seedHi:seedLo, rounded to 8 bits, opaque.
extern "C" __global__ void generate_enlarge(const float *small, int gw, int gh,
                                            int f, int w, int h,
                                            unsigned int seedLo,
                                            unsigned int seedHi, u8 *out) {
  u64 seed = (u64)seedHi << 32 | seedLo;
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    float v = fminx(fmaxx(((float)y + 0.5f) / (float)f - 0.5f, 0.0f), (float)(gh - 1));
    int yi = imin((int)v, gh - 1);
    int yj = imin(yi + 1, gh - 1);
    float fy = v - (float)yi;
    float u = fminx(fmaxx(((float)x + 0.5f) / (float)f - 0.5f, 0.0f), (float)(gw - 1));
    int xi = imin((int)u, gw - 1);
    int xj = imin(xi + 1, gw - 1);
    float fx = u - (float)xi;
    float d = (float)(gen_hash(x, y, seed) >> 40) / (float)(1 << 24) - 0.5f;
    const float *s00 = small + 3 * ((i64)yi * gw + xi), *s01 = small + 3 * ((i64)yi * gw + xj);
    const float *s10 = small + 3 * ((i64)yj * gw + xi), *s11 = small + 3 * ((i64)yj * gw + xj);
    for (int c = 0; c < 3; c++) {
      float a = s00[c] * (1 - fx) + s01[c] * fx;
      float b = s10[c] * (1 - fx) + s11[c] * fx;
      out[4 * p + c] = clamp8((a * (1 - fy) + b * fy) * 255.0f + d);
    }
    out[4 * p + 3] = 255;
  }
}

// shadow_reduce: a soft drop shadow's reduced plane (matting.dropShadow):
// cell (cx,cy) of sw×sh is the mean of the subject alpha / 255 shifted by
// (dx,dy) over its f×f block, clipped at the frame, summed in float32 row
// by row as the CPU does.
extern "C" __global__ void shadow_reduce(const u8 *fg, const u8 *matte, int w,
                                         int h, int dx, int dy, int f, int sw,
                                         int sh, float *small) {
  i64 n = (i64)sw * sh;
  FOR_EACH(p, n) {
    int cx = (int)(p % sw), cy = (int)(p / sw);
    float sum = 0;
    int cnt = 0;
    int y1 = imin(cy * f + f, h), x1 = imin(cx * f + f, w);
    for (int y = cy * f; y < y1; y++) {
      int sy = y - dy;
      for (int x = cx * f; x < x1; x++) {
        cnt++;
        int sx = x - dx;
        if (sy >= 0 && sy < h && sx >= 0 && sx < w) {
          sum += (float)subject_alpha(fg, matte, (i64)sy * w + sx);
        }
      }
    }
    small[p] = sum / (255.0f * (float)cnt);
  }
}

#define SCAN_SEG 64

// subject_scan: the floating shadow's scan (matting.SubjectBox) of the
// pixels whose subject alpha is at least 128: box holds x0, y0, x1, y1,
// the sum of x and the count as 64-bit integers, set by the caller to w,
// h, -1, -1, 0, 0. Each thread scans SCAN_SEG pixels of a row and merges
// its result with integer atomics, so the result is exact in any order.
extern "C" __global__ void subject_scan(const u8 *fg, const u8 *matte, int w,
                                        int h, i64 *box) {
  int segs = (w + SCAN_SEG - 1) / SCAN_SEG;
  i64 n = (i64)segs * h;
  FOR_EACH(p, n) {
    int y = (int)(p / segs), x0 = (int)(p % segs) * SCAN_SEG;
    int x1 = imin(x0 + SCAN_SEG, w);
    int lo = w, hi = -1;
    i64 sum = 0, cnt = 0;
    for (int x = x0; x < x1; x++) {
      if (subject_alpha(fg, matte, (i64)y * w + x) < 128u) continue;
      lo = imin(lo, x);
      hi = x;
      sum += x;
      cnt++;
    }
    if (cnt == 0) continue;
    __atomic_fetch_min(&box[0], (i64)lo, __ATOMIC_RELAXED);
    __atomic_fetch_min(&box[1], (i64)y, __ATOMIC_RELAXED);
    __atomic_fetch_max(&box[2], (i64)hi, __ATOMIC_RELAXED);
    __atomic_fetch_max(&box[3], (i64)y, __ATOMIC_RELAXED);
    __atomic_fetch_add(&box[4], sum, __ATOMIC_RELAXED);
    __atomic_fetch_add(&box[5], cnt, __ATOMIC_RELAXED);
  }
}

// Shadow modes of composite_back.
#define SHADOW_NONE 0
#define SHADOW_SHIFT 1 // the subject alpha shifted by (dx,dy), × opacity
#define SHADOW_PLANE 2 // the reduced plane enlarged bilinearly, × opacity

// back_shadow is composite_back's shadow, uploaded with each call (a
// parameter block: the emulator's calls take at most 15 integer
// arguments, and no float ones).
struct back_shadow {
  int mode, dx, dy; // SHADOW_*; the shift of SHADOW_SHIFT
  float opacity;
  int pw, ph, f; // the plane of SHADOW_PLANE: its size and reduction
};

// composite_back: the subject on an opaque background (matting.Composite,
// Color, Image, Generative): back is the w×h background (RGBA), or null
// for the solid colour (r,g,b); the shadow s darkens it as
// toGamma(srgb8ToLinear[b]·(1-s))·255 where s > 0 (matting.shadowMap and
// upsampleInto, computed per pixel: no shadow plane at full resolution),
// then αF + (1-α)B in 8-bit sRGB, opaque.
extern "C" __global__ void composite_back(const u8 *fg, const u8 *colours,
                                          const u8 *matte, const u8 *back,
                                          int r, int g, int b, int w, int h,
                                          const struct back_shadow *sh,
                                          const float *plane,
                                          const float *gammaLUT,
                                          const float *srgb8, u8 *out) {
  u8 solid[3] = {(u8)r, (u8)g, (u8)b};
  int mode = sh->mode, dx = sh->dx, dy = sh->dy, pw = sh->pw, ph = sh->ph, f = sh->f;
  float opacity = sh->opacity;
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    float a = (float)subject_alpha(fg, matte, p) / 255.0f;
    float s = 0;
    if (mode == SHADOW_SHIFT) {
      int sy = y - dy, sx = x - dx;
      if (sy >= 0 && sy < h && sx >= 0 && sx < w) {
        s = opacity * (float)subject_alpha(fg, matte, (i64)sy * w + sx) / 255.0f;
      }
    } else if (mode == SHADOW_PLANE) {
      float v = fminx(fmaxx(((float)y + 0.5f) / (float)f - 0.5f, 0.0f), (float)(ph - 1));
      int yi = imin((int)v, ph - 1);
      int yj = imin(yi + 1, ph - 1);
      float fy = v - (float)yi;
      float u = fminx(fmaxx(((float)x + 0.5f) / (float)f - 0.5f, 0.0f), (float)(pw - 1));
      int xi = imin((int)u, pw - 1);
      int xj = imin(xi + 1, pw - 1);
      float fx = u - (float)xi;
      float t = plane[(i64)yi * pw + xi] * (1 - fx) + plane[(i64)yi * pw + xj] * fx;
      float q = plane[(i64)yj * pw + xi] * (1 - fx) + plane[(i64)yj * pw + xj] * fx;
      s = opacity * (t * (1 - fy) + q * fy);
    }
    for (int c = 0; c < 3; c++) {
      u8 b8 = back ? back[4 * p + c] : solid[c];
      float bv = (float)b8;
      if (s > 0) bv = lookup(gammaLUT, srgb8[b8] * (1 - s)) * 255.0f;
      out[4 * p + c] = clamp8(a * (float)colours[4 * p + c] + (1 - a) * bv);
    }
    out[4 * p + 3] = 255;
  }
}

// ---- General mode's mask clean-up (matting.classify) ----
//
// The mask is one byte per analysis pixel (0 or 1). Connected components
// are found by union-find over pixel indices (cc_init, cc_union,
// cc_flatten), numbered in raster order of their first pixel (cc_flatten
// counting each tile's roots, cc_scan, cc_number, cc_label) and summarised (cc_stats) in a struct comp
// per component; the clean-up steps read those. Every step is a fixed
// sequence of launches: nothing iterates to convergence, so no changed
// flag and no bound on rounds is needed, and every kernel's result is the
// same under any interleaving of its threads (argued at each kernel; the
// emulator runs them sequentially and cannot catch a race).

#define CC_TILE 2048  // pixels per block of the numbering (cc_flatten, cc_number)
#define CC_SEG 32     // pixels of a row per thread of cc_init and cc_stats

// comp is one component's summary, 8 ints: its area, whether it touches
// the frame, the largest score above 0 as float bits (0 without), and its
// bounding box (x0, y0, x1, y1 inclusive).
struct comp {
  int area, border;
  unsigned int peak;
  int x0, y0, x1, y1, pad;
};

__device__ static inline float fbits(int b) { return __builtin_bit_cast(float, b); }

__device__ static inline int ld_relaxed(const int *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

// cc_root follows parent pointers to a root. Every pointer points to a
// smaller index (parent[i] ≤ i, equality for roots), so the walk ends.
__device__ static inline int cc_root(const int *parent, int i) {
  int p = ld_relaxed(&parent[i]);
  while (p != i) {
    i = p;
    p = ld_relaxed(&parent[i]);
  }
  return i;
}

// cc_unite merges the sets of a and b, lock-free: link the larger root
// under the smaller one with atomicMin. A failed link (the root was linked
// meanwhile: old != b) may have moved b from old's tree to a's when
// a < old; the loop then unites a with old, so nothing the other thread
// joined stays apart once this call returns. Argument: let J be the
// partition generated by the parent pointers together with the pairs
// (a,b) of the calls in progress. Every step keeps J: re-finding replaces
// a by an ancestor; a successful link turns the pair into a pointer; a
// failed one replaces pointer b→old and pair (a,b) by pointer b→min(a,old)
// and pair (a,old), which connect the same nodes. J only grows, by the
// pairs of calls that start, and parent pointers only ever join pixels of
// one connected component. When the kernel ends no call is in progress,
// so the trees are exactly the components, whatever the interleaving (a
// stale read only returns a larger ancestor, which changes nothing of the
// above). Each failed round lowers max(a,b) strictly, so it terminates.
__device__ static void cc_unite(int *parent, int a, int b) {
  for (;;) {
    a = cc_root(parent, a);
    b = cc_root(parent, b);
    if (a == b) return;
    if (a > b) {
      int t = a;
      a = b;
      b = t;
    }
    int old = __atomic_fetch_min(&parent[b], a, __ATOMIC_RELAXED);
    if (old == b) return;
    b = old;
  }
}

// lab_step2 is the squared L*a*b* distance of pixels p and q, summed in
// matting.floodSmooth's order (sq of the differences, channel 0, 1, 2).
__device__ static inline float lab_step2(const float *lab, i64 p, i64 q) {
  return sq(lab[3 * p] - lab[3 * q]) + sq(lab[3 * p + 1] - lab[3 * q + 1]) + sq(lab[3 * p + 2] - lab[3 * q + 2]);
}

// fill_u8 and fill_i32 set n elements to v (device buffers come from a
// pool and are not cleared).
extern "C" __global__ void fill_u8(u8 *p, int n, int v) {
  FOR_EACH(i, (i64)n) p[i] = (u8)v;
}

extern "C" __global__ void fill_i32(int *p, int n, int v) {
  FOR_EACH(i, (i64)n) p[i] = v;
}

// cc_join is whether the graph joins the earlier pixel q with its
// neighbour p: both have m == want and, with lab, their squared L*a*b*
// distance is at most step2 (the flood's graph, matting.floodSmooth).
__device__ static inline bool cc_join(const u8 *m, int want, const float *lab, float step2, i64 q, i64 p) {
  return m[q] == want && m[p] == want && (!lab || lab_step2(lab, q, p) <= step2);
}

// cc_init links the runs of each row segment of CC_SEG pixels (one thread
// per segment, left to right): every pixel with m == want points at the
// first pixel of its run in the segment (pixels joined to their left
// neighbour, see cc_join), which is a root; the others are marked -1.
// The segment's horizontal joins are then made without any atomic, and
// cc_union makes only the others. Each thread writes only its segment.
extern "C" __global__ void cc_init(const u8 *m, int want, int w, int h, const float *lab, int step2Bits,
                                   int *parent) {
  int segs = (w + CC_SEG - 1) / CC_SEG;
  float step2 = fbits(step2Bits);
  FOR_EACH(s, (i64)segs * h) {
    int y = (int)(s / segs), x0 = (int)(s % segs) * CC_SEG, x1 = imin(x0 + CC_SEG, w);
    i64 row = (i64)y * w;
    int start = -1;
    for (int x = x0; x < x1; x++) {
      i64 p = row + x;
      if (m[p] != want) {
        parent[p] = -1;
        start = -1;
        continue;
      }
      if (start < 0 || (lab && !(lab_step2(lab, p - 1, p) <= step2))) start = (int)p;
      parent[p] = start;
    }
  }
}

// cc_union unites each pixel with m == want with its earlier neighbours
// joined to it (cc_join: left and up; with eight also up-left and
// up-right, which with the symmetric later ones cover all 8 neighbours),
// leaving out the joins already made or implied by others, so that the
// atomics (which contend at the roots of large components) are few:
//   - left, inside a row segment: made by cc_init;
//   - up, when the left neighbour, the up-left one and the up one are
//     joined in a square (left-p, upleft-up horizontally, upleft-left
//     vertically): p reaches up through them;
//   - up-left, when p-up and up-upleft, or p-left and left-upleft, are
//     joined; up-right when p-up and up-upright are.
// Horizontal joins are never left out, an up join only for one at x-1 and
// horizontal ones, a diagonal only for vertical and horizontal ones; so by
// induction on x every join of the graph connects pixels of one tree when
// the kernel ends, and the trees are exactly the components.
extern "C" __global__ void cc_union(const u8 *m, int want, int w, int h, int eight,
                                    const float *lab, int step2Bits, int *parent) {
  i64 n = (i64)w * h;
  float step2 = fbits(step2Bits);
  FOR_EACH(p, n) {
    if (m[p] != want) continue;
    int x = (int)(p % w), y = (int)(p / w);
    bool left = x > 0 && cc_join(m, want, lab, step2, p - 1, p);
    if (left && x % CC_SEG == 0) cc_unite(parent, (int)p, (int)p - 1);
    if (y == 0) continue;
    i64 u = p - w;
    bool up = cc_join(m, want, lab, step2, u, p);
    bool leftUp = x > 0 && cc_join(m, want, lab, step2, u - 1, p - 1);
    bool upRow = x > 0 && cc_join(m, want, lab, step2, u - 1, u);
    if (up && !(left && leftUp && upRow)) cc_unite(parent, (int)p, (int)u);
    if (!eight) continue;
    if (x > 0 && !(up && upRow) && !(left && leftUp) && cc_join(m, want, lab, step2, u - 1, p))
      cc_unite(parent, (int)p, (int)u - 1);
    if (x + 1 < w && !(up && cc_join(m, want, lab, step2, u, u + 1)) && cc_join(m, want, lab, step2, u + 1, p))
      cc_unite(parent, (int)p, (int)u + 1);
  }
}

// cc_flatten points every member at its root (the component's smallest
// pixel index, as pointers only go down). No link changes any more: a
// concurrent walk over a flattened pointer reaches the same root. With
// cnt, it also counts the roots of each tile of CC_TILE pixels (one block
// a tile, its threads interleaved over the tile, summed in the block):
// roots are not written, so the count is exact.
extern "C" __global__ void cc_flatten(int *parent, int n, int *cnt) {
  __attribute__((shared)) unsigned int part[MAX_THREADS];
  unsigned int tid = thread_id(), nt = block_threads();
  int tiles = (int)(((i64)n + CC_TILE - 1) / CC_TILE);
  for (int c = (int)block_id(); c < tiles; c += (int)grid_blocks()) {
    i64 lo = (i64)c * CC_TILE, hi = lo + CC_TILE < n ? lo + CC_TILE : n;
    unsigned int k = 0;
    for (i64 p = lo + tid; p < hi; p += nt) {
      int q = parent[p];
      if (q < 0) continue;
      if (q == p) {
        k++;
        continue;
      }
      __atomic_store_n(&parent[p], cc_root(parent, (int)p), __ATOMIC_RELAXED);
    }
    if (cnt) {
      unsigned int sum = block_sum(part, k, tid, nt);
      if (tid == 0) cnt[c] = (int)sum;
    }
  }
}

// cc_scan (one block) turns the tiles' root counts into exclusive offsets
// and writes the component count to *total: each thread adds a run of
// tiles, a block-wide prefix sum gives each run's offset.
extern "C" __global__ void cc_scan(int *cnt, int tiles, int *total) {
  __attribute__((shared)) unsigned int part[MAX_THREADS];
  if (block_id() != 0) return;
  unsigned int tid = thread_id(), nt = block_threads();
  int per = (int)((tiles + nt - 1) / nt), lo = imin((int)tid * per, tiles), hi = imin(lo + per, tiles);
  unsigned int s = 0;
  for (int c = lo; c < hi; c++) s += (unsigned int)cnt[c];
  part[tid] = s;
  __syncthreads();
  block_scan(part, tid, nt);
  unsigned int off = part[tid] - s;
  for (int c = lo; c < hi; c++) {
    unsigned int k = (unsigned int)cnt[c];
    cnt[c] = (int)off;
    off += k;
  }
  if (tid == nt - 1) *total = (int)part[tid];
}

// cc_number gives each root its component number (1-based, raster order
// of the roots, which are the components' first pixels, as
// matting.components numbers them) in labels, and initialises the
// component's summary. One block a tile of CC_TILE pixels, each thread a
// run of them in order, numbered from the tile's offset and the run's
// (a block-wide prefix sum of the runs' root counts). Each thread writes
// only its run's roots.
extern "C" __global__ void cc_number(const int *parent, int n, const int *off, int w, int h,
                                     int *labels, struct comp *comps) {
  __attribute__((shared)) unsigned int part[MAX_THREADS];
  unsigned int tid = thread_id(), nt = block_threads();
  int tiles = (int)(((i64)n + CC_TILE - 1) / CC_TILE), per = CC_TILE / (int)nt;
  for (int c = (int)block_id(); c < tiles; c += (int)grid_blocks()) {
    i64 lo = (i64)c * CC_TILE + (i64)tid * per, hi = lo + per < n ? lo + per : n;
    unsigned int k = 0;
    for (i64 p = lo; p < hi; p++) k += parent[p] == p;
    part[tid] = k;
    __syncthreads();
    block_scan(part, tid, nt);
    int id = off[c] + (int)(part[tid] - k);
    for (i64 p = lo; p < hi; p++) {
      if (parent[p] != p) continue;
      id++;
      labels[p] = id;
      struct comp e = {0, 0, 0u, w, h, -1, -1, 0};
      comps[id - 1] = e;
    }
    __syncthreads(); // part is read before the next tile's counts
  }
}

// cc_label labels every other pixel: its root's number for members, 0
// outside. Roots are not written here, so the reads are of final values.
extern "C" __global__ void cc_label(const int *parent, int n, int *labels) {
  FOR_EACH(p, (i64)n) {
    int r = parent[p];
    if (r < 0) {
      labels[p] = 0;
    } else if (r != p) {
      labels[p] = labels[r];
    }
  }
}

// cc_stats accumulates each component's area, frame contact, bounding box
// and, with score, the largest score above 0 (matting.components' peak:
// the CPU keeps the score when it exceeds the peak so far, from 0, so the
// result is the maximum of the scores above 0, NaN never included). One
// thread per row segment of CC_SEG pixels sums each run of one label in
// registers and merges it with integer atomics when the label changes
// (the peak as the bits of a positive float, which order as the floats
// do), so the result does not depend on order, and a large component
// takes one atomic of each kind per run rather than per pixel.
__device__ static inline void cc_merge(struct comp *comps, int l, int area, int border, unsigned int peak, int x0,
                                       int x1, int y) {
  if (l == 0) return;
  struct comp *c = comps + (l - 1);
  __atomic_fetch_add(&c->area, area, __ATOMIC_RELAXED);
  if (border) __atomic_store_n(&c->border, 1, __ATOMIC_RELAXED);
  if (peak) __atomic_fetch_max(&c->peak, peak, __ATOMIC_RELAXED);
  __atomic_fetch_min(&c->x0, x0, __ATOMIC_RELAXED);
  __atomic_fetch_min(&c->y0, y, __ATOMIC_RELAXED);
  __atomic_fetch_max(&c->x1, x1, __ATOMIC_RELAXED);
  __atomic_fetch_max(&c->y1, y, __ATOMIC_RELAXED);
}

extern "C" __global__ void cc_stats(const int *labels, const float *score, int w, int h, struct comp *comps) {
  int segs = (w + CC_SEG - 1) / CC_SEG;
  FOR_EACH(s, (i64)segs * h) {
    int y = (int)(s / segs), x0 = (int)(s % segs) * CC_SEG, x1 = imin(x0 + CC_SEG, w);
    i64 row = (i64)y * w;
    int cur = 0, area = 0, border = 0, lo = 0, hi = 0;
    unsigned int peak = 0;
    for (int x = x0; x < x1; x++) {
      int l = labels[row + x];
      if (l != cur) {
        cc_merge(comps, cur, area, border, peak, lo, hi, y);
        cur = l, area = 0, border = 0, lo = x, peak = 0;
      }
      if (l == 0) continue;
      area++;
      hi = x;
      if (x == 0 || y == 0 || x == w - 1 || y == h - 1) border = 1;
      if (score) {
        float v = score[row + x];
        unsigned int b = __builtin_bit_cast(unsigned int, v);
        if (v > 0.0f && b > peak) peak = b;
      }
    }
    cc_merge(comps, cur, area, border, peak, lo, hi, y);
  }
}

// mask_above sets the mask where dist > t (float bits), as classify does.
extern "C" __global__ void mask_above(const float *dist, int n, int tBits, u8 *mask) {
  float t = fbits(tBits);
  FOR_EACH(p, (i64)n) mask[p] = dist[p] > t ? 1 : 0;
}

// count_true adds the set pixels of mask to *total: each thread counts
// its pixels, each block adds its threads' counts and then once to
// *total (integer addition, so any order gives the count).
extern "C" __global__ void count_true(const u8 *mask, int n, int *total) {
  __attribute__((shared)) unsigned int part[MAX_THREADS];
  unsigned int k = 0;
  FOR_EACH(p, (i64)n) k += mask[p] != 0;
  unsigned int sum = block_sum(part, k, thread_id(), block_threads());
  if (thread_id() == 0 && sum) __atomic_fetch_add(total, (int)sum, __ATOMIC_RELAXED);
}

// keep_largest raises *largest to the area of every component whose peak
// reaches strong (matting.keepComponents), over the *ncomp components.
extern "C" __global__ void keep_largest(const struct comp *comps, const int *ncomp, int strongBits, int *largest) {
  float strong = fbits(strongBits);
  int nc = *ncomp;
  FOR_EACH(i, (i64)nc) {
    const struct comp *c = comps + i;
    if (fbits((int)c->peak) >= strong) __atomic_fetch_max(largest, c->area, __ATOMIC_RELAXED);
  }
}

// keep_apply clears the pixels of components smaller than
// max(minFloor, *largest/50) or whose peak stays below strong; with kept,
// it also copies the result there. Each thread writes its own pixel.
extern "C" __global__ void keep_apply(u8 *mask, const int *labels, const struct comp *comps, int n,
                                      int minFloor, const int *largest, int strongBits, u8 *kept) {
  float strong = fbits(strongBits);
  int minArea = imax(minFloor, *largest / 50);
  FOR_EACH(p, (i64)n) {
    int l = labels[p];
    if (l != 0) {
      const struct comp *c = comps + (l - 1);
      if (c->area < minArea || fbits((int)c->peak) < strong) mask[p] = 0;
    }
    if (kept) kept[p] = mask[p];
  }
}

// holes_apply fills the background components (labelled 4-connected)
// that do not touch the frame and have at most *count/2 pixels
// (matting.fillHoles with maxArea = countTrue(mask)/2).
extern "C" __global__ void holes_apply(u8 *mask, const int *labels, const struct comp *comps, int n,
                                       const int *count) {
  int maxArea = *count / 2;
  FOR_EACH(p, (i64)n) {
    int l = labels[p];
    if (l == 0) continue;
    const struct comp *c = comps + (l - 1);
    if (!c->border && c->area <= maxArea) mask[p] = 1;
  }
}

// slit_sliver is matting.fillSlits' sliver test of component c (0-based).
__device__ static inline bool slit_sliver(const struct comp *comps, int c, int wideMax) {
  int cw = comps[c].x1 - comps[c].x0 + 1, ch = comps[c].y1 - comps[c].y0 + 1;
  return cw <= wideMax && ch >= 3 * cw;
}

// slit_gap is one gap of a line of matting.fillSlits' scan, whose m
// pixels start at base, stride apart: the labelled pixel j follows an
// unlabelled one, and the gap reaches back to the line's last labelled
// pixel before it (none: no gap). The scan's decisions are each such
// pair's, so every gap is one thread's and its pixels are written by no
// other. The extent of a component is its width (rows) or height.
__device__ static void slit_gap(const int *labels, const struct comp *comps, i64 base, i64 stride, int j,
                                int rows, int maxGap, u8 *fill, int *wide) {
  int wideMax = 2 * maxGap;
  int last = j - 2;
  while (last >= 0 && labels[base + last * stride] == 0) last--;
  if (last < 0) return;
  int l = labels[base + j * stride], lastLabel = labels[base + last * stride];
  int gap = j - last - 1;
  const struct comp *c = comps + (l - 1);
  int ext = rows ? c->x1 - c->x0 + 1 : c->y1 - c->y0 + 1;
  if (l != lastLabel) {
    if (rows && gap <= wideMax && (slit_sliver(comps, l - 1, wideMax) || slit_sliver(comps, lastLabel - 1, wideMax))) {
      for (int k = last + 1; k < j; k++) wide[base + k * stride] = gap;
    }
  } else if (gap <= maxGap && gap * 10 <= 3 * ext) {
    for (int k = last + 1; k < j; k++) fill[base + k * stride] = 1;
  } else if (rows && gap <= wideMax && gap * 20 <= 9 * ext) {
    for (int k = last + 1; k < j; k++) wide[base + k * stride] = gap;
  }
}

// slit_rows scans the rows: one thread per pixel, which handles the gap
// ending there (slit_gap), with the wide candidates; fill and wide must
// be cleared.
extern "C" __global__ void slit_rows(const int *labels, const struct comp *comps, int w, int h, int maxGap,
                                     u8 *fill, int *wide) {
  FOR_EACH(p, (i64)w * h) {
    int x = (int)(p % w);
    if (x == 0 || labels[p] == 0 || labels[p - 1] != 0) continue;
    slit_gap(labels, comps, p - x, 1, x, 1, maxGap, fill, wide);
  }
}

// slit_cols scans the columns likewise (after slit_rows).
extern "C" __global__ void slit_cols(const int *labels, const struct comp *comps, int w, int h, int maxGap,
                                     u8 *fill) {
  FOR_EACH(p, (i64)w * h) {
    int y = (int)(p / w);
    if (y == 0 || labels[p] == 0 || labels[p - w] != 0) continue;
    slit_gap(labels, comps, p % w, w, y, 0, maxGap, fill, 0);
  }
}

// slit_wide sets the mask where fill is set, and accepts the wide
// candidates of each column's vertical runs as matting.fillSlits does (a
// thread per pixel; the one at the top of a run handles the run): a run
// of n candidates whose widest gap is widest and whose median, the
// element n/2 of the sorted widths, is typical. typical is found without
// sorting, by bisection on the value: the smallest v with more than n/2
// widths ≤ v. An accepted run is set in the mask (fill is read by no one
// after this). Every write sets a mask pixel to 1, so the result does not
// depend on their order.
extern "C" __global__ void slit_wide(const int *wide, int w, int h, u8 *fill, u8 *mask) {
  FOR_EACH(p, (i64)w * h) {
    if (fill[p]) mask[p] = 1;
    if (wide[p] == 0 || (p >= w && wide[p - w] > 0)) continue;
    int x = (int)(p % w), y0 = (int)(p / w), y = y0, widest = 0;
    while (y < h && wide[(i64)y * w + x] > 0) {
      widest = imax(widest, wide[(i64)y * w + x]);
      y++;
    }
    int n = y - y0;
    int lo = 1, hi = widest;
    while (lo < hi) {
      int mid = lo + (hi - lo) / 2, k = 0;
      for (int j = y0; j < y; j++) k += wide[(i64)j * w + x] <= mid;
      if (k > n / 2) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    int typical = lo;
    if (n >= 3 * widest || (2 * n >= 3 * typical && 2 * widest <= 3 * typical)) {
      for (int k = y0; k < y; k++) mask[(i64)k * w + x] = 1;
    }
  }
}

// smooth_lab is the 3×3 average of the L*a*b* planes (matting's
// smoothLab), summed in the CPU's order.
extern "C" __global__ void smooth_lab(const float *lab, int w, int h, float *out) {
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    float s0 = 0, s1 = 0, s2 = 0, cnt = 0;
    for (int dy = -1; dy <= 1; dy++) {
      int yy = y + dy;
      if (yy < 0 || yy >= h) continue;
      for (int dx = -1; dx <= 1; dx++) {
        int xx = x + dx;
        if (xx < 0 || xx >= w) continue;
        i64 o = 3 * ((i64)yy * w + xx);
        s0 += lab[o];
        s1 += lab[o + 1];
        s2 += lab[o + 2];
        cnt++;
      }
    }
    out[3 * p] = s0 / cnt;
    out[3 * p + 1] = s1 / cnt;
    out[3 * p + 2] = s2 / cnt;
  }
}

// flood_prep marks the pixels the flood may enter (matting.floodSmooth):
// set in the mask, not protected (protected = mask && !kept, so this is
// mask && kept) and not of plain distance ≥ limit (float bits; a NaN
// distance may be entered, as on the CPU).
extern "C" __global__ void flood_prep(const u8 *mask, const u8 *kept, const float *plain, int n, int limitBits,
                                      u8 *enter) {
  float limit = fbits(limitBits);
  FOR_EACH(p, (i64)n) enter[p] = mask[p] && kept[p] && !(plain[p] >= limit) ? 1 : 0;
}

// flood_hit marks the flood's entry points. The flood's result is
// reachability: from the seeds (background pixels whose 4-connected
// background component touches the frame) a step enters a neighbouring
// enterable pixel at squared smoothed distance ≤ step2, and from entered
// pixels likewise; the entered pixels are set to background. Steps are
// symmetric, so an enterable pixel is entered exactly when its component
// in the graph of enterable pixels and such steps (cc_union with lab)
// holds a pixel one step from a seed: such components are marked here
// (hit[root] = 1, the same value from every writer) and cleared by
// flood_apply. No order is involved.
extern "C" __global__ void flood_hit(const int *labels, const struct comp *comps, const u8 *enter,
                                     const float *lab, int w, int h, int step2Bits, const int *root, u8 *hit) {
  i64 n = (i64)w * h;
  float step2 = fbits(step2Bits);
  FOR_EACH(p, n) {
    int l = labels[p];
    if (l == 0 || !comps[l - 1].border) continue;
    int x = (int)(p % w), y = (int)(p / w);
    for (int d = 0; d < 4; d++) {
      i64 q;
      if (d == 0) {
        if (x + 1 >= w) continue;
        q = p + 1;
      } else if (d == 1) {
        if (x == 0) continue;
        q = p - 1;
      } else if (d == 2) {
        if (y + 1 >= h) continue;
        q = p + w;
      } else {
        if (y == 0) continue;
        q = p - w;
      }
      if (enter[q] && lab_step2(lab, p, q) <= step2) hit[root[q]] = 1;
    }
  }
}

// flood_apply clears the enterable pixels whose component was hit.
extern "C" __global__ void flood_apply(const u8 *enter, const int *root, const u8 *hit, int n, u8 *mask) {
  FOR_EACH(p, (i64)n) {
    if (enter[p] && hit[root[p]]) mask[p] = 0;
  }
}

// ---- General mode's clean-plate samples (matting.samplePlate) ----
//
// Between classification rounds the clean plate is refitted to the pixels
// away from the mask (outside its square dilation), not shadowed and of
// distance below t/2, summed per cell. The dilation is separable, as
// matting.squareMorph computes it: any set pixel within r along the row
// (dilate_rows), then along the column (dilate_cols). Each kernel writes
// only its own elements from inputs written by earlier launches, so its
// result is the same under any interleaving of its threads.

// dilate_rows sets out[p] when a pixel of m within r of p in its row is
// set: matting.squareMorph's row pass with grow, the window clipped at the
// frame (r ≤ 0: a copy). r is clamped to w, which changes no window.
extern "C" __global__ void dilate_rows(const u8 *m, int w, int h, int r, u8 *out) {
  i64 n = (i64)w * h;
  int rr = imin(imax(r, 0), w);
  FOR_EACH(p, n) {
    int x = (int)(p % w);
    i64 row = p - x;
    int lo = imax(x - rr, 0), hi = imin(x + rr, w - 1);
    u8 v = 0;
    for (int k = lo; k <= hi && !v; k++) v = m[row + k] != 0;
    out[p] = v;
  }
}

// dilate_cols is dilate_rows along the columns: squareMorph's column pass
// over the row pass's result.
extern "C" __global__ void dilate_cols(const u8 *m, int w, int h, int r, u8 *out) {
  i64 n = (i64)w * h;
  int rr = imin(imax(r, 0), h);
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    int lo = imax(y - rr, 0), hi = imin(y + rr, h - 1);
    u8 v = 0;
    for (int k = lo; k <= hi && !v; k++) v = m[(i64)k * w + x] != 0;
    out[p] = v;
  }
}

// plate_use marks the samples: not near the mask, not shadowed, and of
// distance below half (float bits of the CPU's float32 t/2; a NaN distance
// is no sample, as on the CPU).
extern "C" __global__ void plate_use(const u8 *near, const u8 *shadowed, const float *dist, int n, int halfBits,
                                     u8 *use) {
  float half = fbits(halfBits);
  FOR_EACH(p, (i64)n) use[p] = !near[p] && !shadowed[p] && dist[p] < half ? 1 : 0;
}

// plate_sums sums the linear colour and the count of each cell's samples
// (4 doubles per cell of size cell, ceil(w/cell)×ceil(h/cell) cells in
// raster order), one thread per cell: it adds the cell's samples rows top
// to bottom, each row left to right, in double precision, which is the
// order matting.plateSums adds each cell's pixels in, so every sum is the
// CPU's bit for bit. No other thread touches the cell's sums: no atomics,
// no order between threads. cell must be at most max(w, h) (the caller
// clamps it; no cell index changes), so no index overflows.
extern "C" __global__ void plate_sums(const u8 *use, const float *lin, int w, int h, int cell, double *sums) {
  int gw = (w + cell - 1) / cell, gh = (h + cell - 1) / cell;
  FOR_EACH(c, (i64)gw * gh) {
    int cx = (int)(c % gw), cy = (int)(c / gw);
    int x0 = cx * cell, x1 = imin(x0 + cell, w);
    int y0 = cy * cell, y1 = imin(y0 + cell, h);
    double r = 0, g = 0, b = 0, k = 0;
    for (int y = y0; y < y1; y++) {
      for (int x = x0; x < x1; x++) {
        i64 p = (i64)y * w + x;
        if (!use[p]) continue;
        r += (double)lin[3 * p];
        g += (double)lin[3 * p + 1];
        b += (double)lin[3 * p + 2];
        k += 1.0;
      }
    }
    sums[4 * c] = r;
    sums[4 * c + 1] = g;
    sums[4 * c + 2] = b;
    sums[4 * c + 3] = k;
  }
}

// ---- The refinement's plan (matting.planRefine) ----
//
// The unknown band is the cells with a 4-neighbour of the other label
// (refine_edges) dilated by the band radius, and the cells with statistics
// are the band dilated by one (dilate_rows, dilate_cols: matting's
// squareMorph, as for the clean plate). refine_cells marks the confident
// pixels and numbers the cells with statistics by their own index (the
// statistics are laid out densely, one entry per cell: refine reads them
// only through index, so no compaction and no order between threads is
// needed). refine_stats computes each such cell's statistics, and
// refine_means completes those of cells that need the image's means. Each
// kernel writes only its own elements from inputs written by earlier
// launches, except refine_stats' flag, which threads only ever set to 1
// with an atomic or: each result is the same under any interleaving of
// the threads.

// refine_edges sets edge[p] when a 4-neighbour of p has the other label
// (matting.boundaryBand before its dilation).
extern "C" __global__ void refine_edges(const u8 *mask, int w, int h, u8 *edge) {
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int x = (int)(p % w), y = (int)(p / w);
    u8 v = mask[p] != 0;
    edge[p] = (x + 1 < w && (mask[p + 1] != 0) != v) || (x > 0 && (mask[p - 1] != 0) != v) ||
              (y + 1 < h && (mask[p + w] != 0) != v) || (y > 0 && (mask[p - w] != 0) != v);
  }
}

// refine_cells writes conf (1: confident foreground, mask and not band;
// 2: confident background, neither; 0: in the band) and index (p for the
// cells of around, -1 elsewhere).
extern "C" __global__ void refine_cells(const u8 *mask, const u8 *band, const u8 *around, int n, u8 *conf,
                                        int *index) {
  FOR_EACH(p, (i64)n) {
    conf[p] = band[p] ? 0 : mask[p] ? 1 : 2;
    index[p] = around[p] ? (int)p : -1;
  }
}

// gomax0 is Go's math.Max(0, v): a NaN stays NaN, -0 becomes +0.
__device__ static inline double gomax0(double v) { return v > 0 || v != v ? v : 0.0; }

// wstats is one kind's result of a window: mean, total variance, weight.
struct wstats {
  float mean[3], var;
  double weight;
};

// wstats_of finishes one kind's sums as matting.windowStats does.
__device__ static inline struct wstats wstats_of(double s0, double s1, double s2, double q, double ws) {
  struct wstats o = {{0, 0, 0}, 0, ws};
  if (ws > 0) {
    double m0 = s0 / ws, m1 = s1 / ws, m2 = s2 / ws;
    o.mean[0] = (float)m0;
    o.mean[1] = (float)m1;
    o.mean[2] = (float)m2;
    o.var = (float)gomax0(q / ws - (m0 * m0 + m1 * m1 + m2 * m2));
  }
  return o;
}

// window_stats is matting.windowStats at (x, y) with radius r: the
// distance-weighted sums of the confident foreground (conf 1) and
// background (conf 2) pixels' colours over the clipped window in raster
// order, in double precision, each operation as the CPU's.
__device__ static void window_stats(const float *raw, const u8 *conf, int w, int h, int x, int y, int r,
                                    struct wstats *fg, struct wstats *bg) {
  double sf0 = 0, sf1 = 0, sf2 = 0, qf = 0, wf = 0;
  double sb0 = 0, sb1 = 0, sb2 = 0, qb = 0, wb = 0;
  int y0 = imax(y - r, 0), y1 = imin(y + r, h - 1);
  int x0 = imax(x - r, 0), x1 = imin(x + r, w - 1);
  for (int yy = y0; yy <= y1; yy++) {
    for (int xx = x0; xx <= x1; xx++) {
      i64 p = (i64)yy * w + xx;
      u8 k = conf[p];
      if (k == 0) continue;
      double dx = (double)(xx - x), dy = (double)(yy - y);
      double wt = 1.0 / (1.0 + (dx * dx + dy * dy) / 4.0);
      double cr = (double)raw[3 * p], cg = (double)raw[3 * p + 1], cb = (double)raw[3 * p + 2];
      if (k == 1) {
        sf0 += wt * cr;
        sf1 += wt * cg;
        sf2 += wt * cb;
        qf += wt * (cr * cr + cg * cg + cb * cb);
        wf += wt;
      } else {
        sb0 += wt * cr;
        sb1 += wt * cg;
        sb2 += wt * cb;
        qb += wt * (cr * cr + cg * cg + cb * cb);
        wb += wt;
      }
    }
  }
  *fg = wstats_of(sf0, sf1, sf2, qf, wf);
  *bg = wstats_of(sb0, sb1, sb2, qb, wb);
}

// refine_stats computes, one thread per cell with index[p] ≥ 0, the cell's
// statistics into its entry (8 floats, matting.StatsStride) as
// matting.localStats does: windows of radius radius, doubled while at most
// 4·radius, until both kinds have weight above 0.5, each kind taken from
// the first window where it has. A kind that never has needs the whole
// image's mean (a sequential sum in raster order, which the host makes,
// matting.ConfidentMeans): its variance is left at -1 (a variance is never
// negative) for refine_means, and *flag is set. One thread computes each
// entry from inputs of earlier launches, in the CPU's order; the flag is
// only ever set to 1, so its value is the same under any interleaving of
// the threads. radius is at least 1 and at most max(w, h) (the caller
// clamps it; windows of any larger radius cover the whole image as well),
// so nothing overflows.
extern "C" __global__ void refine_stats(const float *raw, const u8 *conf, const int *index, int w, int h,
                                        int radius, float *statv, int *flag) {
  i64 n = (i64)w * h;
  FOR_EACH(p, n) {
    int e = index[p];
    if (e < 0) continue;
    int x = (int)(p % w), y = (int)(p / w);
    float *st = statv + 8 * (i64)e;
    st[6] = st[7] = -1.0f;
    int okF = 0, okB = 0;
    for (int r = radius; r <= 4 * radius && !(okF && okB); r *= 2) {
      struct wstats fs, bs;
      window_stats(raw, conf, w, h, x, y, r, &fs, &bs);
      if (!okF && fs.weight > 0.5) {
        st[0] = fs.mean[0];
        st[1] = fs.mean[1];
        st[2] = fs.mean[2];
        st[6] = fs.var;
        okF = 1;
      }
      if (!okB && bs.weight > 0.5) {
        st[3] = bs.mean[0];
        st[4] = bs.mean[1];
        st[5] = bs.mean[2];
        st[7] = bs.var;
        okB = 1;
      }
    }
    if (!okF || !okB) __atomic_fetch_or(flag, 1, __ATOMIC_RELAXED);
  }
}

// refine_means gives the entries that refine_stats left without a kind
// (variance -1) the whole image's mean of that kind (means: foreground
// r, g, b, background r, g, b, from the host) and variance 0.05, as
// matting.localStats does. Each thread writes only its own entry.
extern "C" __global__ void refine_means(const int *index, int n, const float *means, float *statv) {
  FOR_EACH(p, (i64)n) {
    int e = index[p];
    if (e < 0) continue;
    float *st = statv + 8 * (i64)e;
    if (st[6] < 0) {
      st[0] = means[0];
      st[1] = means[1];
      st[2] = means[2];
      st[6] = 0.05f;
    }
    if (st[7] < 0) {
      st[3] = means[3];
      st[4] = means[4];
      st[5] = means[5];
      st[7] = 0.05f;
    }
  }
}

// ---------------------------------------------------------------------------
// The background model's robust fit (fit.go): matting.fitBackground's
// rounds of iteratively reweighted least squares. Each round
// is fit_residuals, three passes of fit_select (the median residual,
// selected exactly by radix on the bits of the non-negative floats), fit_weights, fit_partial and fit_sums and fit_solve, all on
// one struct fitstate. The normal equations are summed in chunks (see
// fit_partial), so the model differs from the CPU's in the last bits.

#define FIT_TERMS 6
#define FIT_ENTRIES 39 // 21 entries of A^T W A's upper triangle, 18 of A^T W b
#define FIT_CHUNK 64    // samples per partial sum of fit_partial
#define SEL_BINS 2048   // fit_select's digits: 11 bits
#define SEL_PASSES 3    // fit_select's passes: digits of 11, 11 and 10 bits

// fitstate is the state of one fit, shared by its kernels; the Go side
// (fitState in fit.go) has the same layout. The host writes coef, cutK,
// cutMin and k (n/2) and zeroes the rest; it reads coef and flag.
struct fitstate {
  double coef[3][FIT_TERMS]; // the model, updated by fit_solve
  double cutK, cutMin;       // matting.TukeyCut, matting.MinCut
  int flag;                  // set when a residual is NaN: the host refits
  int k;                     // the rank still sought by the selection
  unsigned int prefix;       // the bits of the value selected so far
  unsigned int value;        // the bits of the last value selected
  double cut;                                // the round's Tukey cut
  double ata[FIT_TERMS][FIT_TERMS];          // upper triangle summed
  double atb[3][FIT_TERMS];
  unsigned int hist[SEL_BINS]; // the selection's digit counts
  int count;                   // field_residuals: the residuals below 20
  float t;                     // thresh_final: the round's threshold
  unsigned int ticket;         // fit_select: the blocks done with a pass
};
static_assert(sizeof(struct fitstate) == 8824, "fitstate layout");
static_assert(__builtin_offsetof(struct fitstate, flag) == 160, "fitstate layout");
static_assert(__builtin_offsetof(struct fitstate, count) == 8808, "fitstate layout");

// fit_basis writes each sample's quadratic basis (matting.polyBasis of
// bgModel.coords): 1, x, y, x², xy, y² over pixel centres scaled to
// [-1, 1].
extern "C" __global__ void fit_basis(const int *idx, int n, int w, int h, double *basis) {
  FOR_EACH(i, (i64)n) {
    int x = idx[i] % w, y = idx[i] / w;
    double nx = ((double)x + 0.5) / (double)w * 2.0 - 1.0;
    double ny = ((double)y + 0.5) / (double)h * 2.0 - 1.0;
    double *b = basis + FIT_TERMS * i;
    b[0] = 1.0;
    b[1] = nx;
    b[2] = ny;
    b[3] = nx * nx;
    b[4] = nx * ny;
    b[5] = ny * ny;
  }
}

// fit_gather sets vals to channel c of each sample's linear light, whose
// median (fit_select) starts a fit from no model.
extern "C" __global__ void fit_gather(const float *lin, const int *idx, int n, int c, float *vals) {
  FOR_EACH(i, (i64)n) vals[i] = lin[3 * (i64)idx[i] + c];
}

// fit_init (one thread) sets channel c of the model to the value just
// selected (matting.initialModel: the median of the samples' linear light
// as the constant term; the host zeroed the rest). Linear light is +0 or
// positive, so its bits order as its values; a NaN is flagged by
// fit_weights and the host refits.
extern "C" __global__ void fit_init(int c, struct fitstate *st) {
  FOR_EACH(t, (i64)1) st->coef[c][0] = (double)__builtin_bit_cast(float, st->value);
}

// fit_residuals sets res to each sample's L*a*b* distance to the model
// (matting.residuals with bgModel.at), flagging NaN; a NaN model colour
// (after a flagged round) is not looked up.
extern "C" __global__ void fit_residuals(const float *lab, const int *idx, const double *basis, int n,
                                         struct fitstate *st, const float *cbrtLUT, float *res) {
  FOR_EACH(i, (i64)n) {
    const double *b = basis + FIT_TERMS * i;
    float rgb[3];
    int nan = 0;
    for (int c = 0; c < 3; c++) {
      double s = 0.0;
      for (int k = 0; k < FIT_TERMS; k++) s += st->coef[c][k] * b[k];
      // math.Max(0, s): NaN stays NaN, -0 becomes +0
      rgb[c] = (float)(s != s ? s : (s > 0.0 ? s : 0.0));
      nan |= rgb[c] != rgb[c];
    }
    if (nan) {
      res[i] = rgb[0] + rgb[1] + rgb[2];
      __atomic_store_n(&st->flag, 1, __ATOMIC_RELAXED);
      continue;
    }
    float m[3];
    lin_to_lab(cbrtLUT, rgb[0], rgb[1], rgb[2], m);
    const float *o = lab + 3 * (i64)idx[i];
    float r = (float)__builtin_sqrt((double)(sq(o[0] - m[0]) + sq(o[1] - m[1]) + sq(o[2] - m[2])));
    res[i] = r;
    if (r != r) __atomic_store_n(&st->flag, 1, __ATOMIC_RELAXED);
  }
}

// The selection is a parallel radix select on the bits of the
// non-negative floats (+0 or positive: NaN flags the fit), which order as
// their values: three passes of fit_select over digits of 11, 11 and 10
// bits (SEL_SHIFT), each one launch over the whole grid. Each block
// counts the values whose higher bits are the prefix selected so far by
// their digit in a histogram in shared memory, adds its counts to the
// state's (integer atomics, so exact in any order) and takes a ticket;
// the block that takes the last ticket (every other block's counts are
// then added: each fenced them before its ticket) finds the digit of the
// sought rank with a block-wide prefix sum, clears the counts and the
// ticket for the next pass, and after the last pass keeps the selected
// value (for the fit, the median: matting.medianOf, the element at index
// n/2 once sorted), sets the round's cut, max(cutK·median, cutMin) as
// math.Max, and resets the selection for the next round.

// sel_shift is the lowest bit of pass's digit; the digit has the bits
// from there up to the previous pass's shift (32 for the first).
__device__ static inline int sel_shift(int pass) { return pass == 0 ? 21 : (pass == 1 ? 10 : 0); }

extern "C" __global__ void fit_select(const float *res, int n, int pass, struct fitstate *st) {
  __attribute__((shared)) unsigned int hist[SEL_BINS];
  __attribute__((shared)) unsigned int part[MAX_THREADS];
  __attribute__((shared)) int last;
  unsigned int tid = __nvvm_read_ptx_sreg_tid_x(), nt = __nvvm_read_ptx_sreg_ntid_x();
  int shift = sel_shift(pass), top = pass == 0 ? 32 : sel_shift(pass - 1);
  unsigned int digits = (1u << (top - shift)) - 1u;
  for (unsigned int d = tid; d < SEL_BINS; d += nt) hist[d] = 0;
  __syncthreads();
  unsigned int prefix = st->prefix;
  FOR_EACH(i, (i64)n) {
    unsigned int v = __builtin_bit_cast(unsigned int, res[i]);
    if (top < 32 && (v >> top) != (prefix >> top)) continue;
    __atomic_fetch_add(&hist[(v >> shift) & digits], 1u, __ATOMIC_RELAXED);
  }
  __syncthreads();
  for (unsigned int d = tid; d < SEL_BINS; d += nt) {
    unsigned int c = hist[d];
    if (c) __atomic_fetch_add(&st->hist[d], c, __ATOMIC_RELAXED);
  }
  __nvvm_membar_gl();
  __syncthreads();
  if (tid == 0)
    last = __atomic_fetch_add(&st->ticket, 1u, __ATOMIC_RELAXED) == __nvvm_read_ptx_sreg_nctaid_x() - 1u;
  __syncthreads();
  if (!last) return;
  __nvvm_membar_gl();
  // the last block: each thread sums a run of per bins, then the scan
  unsigned int per = SEL_BINS / nt, lo = tid * per, sum = 0;
  for (unsigned int d = lo; d < lo + per; d++) sum += __atomic_load_n(&st->hist[d], __ATOMIC_RELAXED);
  part[tid] = sum;
  __syncthreads();
  block_scan(part, tid, nt);
  unsigned int k = (unsigned int)st->k, before = part[tid] - sum;
  bool mine = before <= k && k < part[tid];
  if (tid == nt - 1 && k >= part[tid]) mine = true, before = part[tid]; // unreachable: k < n
  __syncthreads(); // every thread has read k
  if (mine) {
    unsigned int digit = lo + per - 1;
    for (unsigned int d = lo, cum = before; d < lo + per; d++) {
      unsigned int c = __atomic_load_n(&st->hist[d], __ATOMIC_RELAXED);
      if (k < cum + c) {
        digit = d;
        before = cum;
        break;
      }
      cum += c;
    }
    st->k -= (int)before;
    st->prefix |= (digit & digits) << shift;
    if (pass == SEL_PASSES - 1) {
      st->value = st->prefix;
      double scale = (double)__builtin_bit_cast(float, st->prefix);
      double c = st->cutK * scale;
      st->cut = c != c ? c : (c > st->cutMin ? c : st->cutMin);
      st->k = n / 2;
      st->prefix = 0;
    }
  }
  for (unsigned int d = lo; d < lo + per; d++) st->hist[d] = 0;
  if (tid == 0) st->ticket = 0;
}

// fit_weights sets the products w·b[p] of each sample's Tukey weight w
// (matting.fitBackground) and basis that fit_sums adds. It flags a sample whose
// linear light is not finite, which fit_sums could not add as the CPU
// skips it (0·∞ is NaN).
extern "C" __global__ void fit_weights(const float *res, const double *basis, const float *lin, const int *idx,
                                       int n, struct fitstate *st, double *wb) {
  double cut = st->cut;
  FOR_EACH(i, (i64)n) {
    double u = (double)res[i] / cut;
    double wt = u >= 1.0 ? 0.0 : (1.0 - u * u) * (1.0 - u * u);
    for (int p = 0; p < FIT_TERMS; p++) wb[FIT_TERMS * i + p] = wt * basis[FIT_TERMS * i + p];
    const float *l = lin + 3 * (i64)idx[i];
    for (int c = 0; c < 3; c++)
      if (!(__builtin_fabsf(l[c]) <= __builtin_inff())) __atomic_store_n(&st->flag, 1, __ATOMIC_RELAXED);
  }
}

// fit_entry decodes entry e of the normal equations: e < 21 is ata[p][q],
// p ≤ q, in row order (c = -1); the others atb[c][p] (q = -1).
__device__ static inline void fit_entry(int e, int *p, int *q, int *c) {
  *q = -1;
  *c = -1;
  if (e < 21) {
    int r = e, pp = 0;
    while (r >= FIT_TERMS - pp) {
      r -= FIT_TERMS - pp;
      pp++;
    }
    *p = pp;
    *q = pp + r;
  } else {
    *c = (e - 21) / FIT_TERMS;
    *p = (e - 21) % FIT_TERMS;
  }
}

// fit_partial is the first pass of the normal equations
// (matting.normalSums) as a two-pass reduction: one thread per entry and
// chunk of FIT_CHUNK samples, each adding its chunk's products in the
// samples' order in double precision into part[chunk·FIT_ENTRIES + e]
// (a 20 000-sample fit: 313 chunks, 12 207 threads, where one thread per
// entry added 20 000 products in a row). The order of every addition is
// fixed by the chunk size, not by the launch, so the result is the same
// on any grid and on the emulator; it differs from the CPU's sequential
// sum only in the last bits, and not at all for a fit of at most
// FIT_CHUNK samples. The CPU skips the samples of zero weight; adding
// them instead changes nothing: their products are ±0 (the basis and,
// unless flagged, the linear light are finite), and a sum from +0 is
// never -0, so adding ±0 leaves it as it is.
extern "C" __global__ void fit_partial(const double *basis, const double *wb, const float *lin, const int *idx, int n,
                                       double *part) {
  int chunks = (n + FIT_CHUNK - 1) / FIT_CHUNK;
  FOR_EACH(t, (i64)chunks * FIT_ENTRIES) {
    int chunk = (int)(t / FIT_ENTRIES), e = (int)(t % FIT_ENTRIES);
    int p, q, c;
    fit_entry(e, &p, &q, &c);
    int lo = chunk * FIT_CHUNK, hi = imin(lo + FIT_CHUNK, n);
    const double *a = wb + p;
    double acc = 0.0;
    if (q >= 0) {
      const double *f = basis + q;
#pragma unroll 8
      for (int i = lo; i < hi; i++) acc += a[FIT_TERMS * (i64)i] * f[FIT_TERMS * (i64)i];
    } else {
#pragma unroll 8
      for (int i = lo; i < hi; i++) acc += a[FIT_TERMS * (i64)i] * (double)lin[3 * (i64)idx[i] + c];
    }
    part[t] = acc;
  }
}

// fit_sums is the second pass: one thread per entry adds the chunks'
// partial sums in chunk order into the normal equations.
extern "C" __global__ void fit_sums(const double *part, int n, struct fitstate *st) {
  int chunks = (n + FIT_CHUNK - 1) / FIT_CHUNK;
  FOR_EACH(e, (i64)FIT_ENTRIES) {
    int p, q, c;
    fit_entry((int)e, &p, &q, &c);
    double acc = 0.0;
#pragma unroll 8
    for (int k = 0; k < chunks; k++) acc += part[(i64)k * FIT_ENTRIES + e];
    if (q >= 0) {
      st->ata[p][q] = acc;
    } else {
      st->atb[c][p] = acc;
    }
  }
}

// fit_solve (one thread) mirrors the upper triangle and solves for each
// channel with matting.solve's ridge and Gaussian elimination with
// partial pivoting, keeping a channel's model when its system is
// singular.
extern "C" __global__ void fit_solve(struct fitstate *st) {
  FOR_EACH(t, (i64)1) {
    const int n = FIT_TERMS;
    for (int p = 0; p < n; p++)
      for (int q = 0; q < p; q++) st->ata[p][q] = st->ata[q][p];
    for (int c = 0; c < 3; c++) {
      double aug[FIT_TERMS][FIT_TERMS + 1];
      for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) aug[i][j] = st->ata[i][j];
        aug[i][i] += 1e-6 * (1.0 + st->ata[0][0]);
        aug[i][n] = st->atb[c][i];
      }
      int ok = 1;
      for (int col = 0; col < n && ok; col++) {
        int piv = col;
        for (int r = col + 1; r < n; r++)
          if (__builtin_fabs(aug[r][col]) > __builtin_fabs(aug[piv][col])) piv = r;
        if (__builtin_fabs(aug[piv][col]) < 1e-12) {
          ok = 0;
          break;
        }
        for (int j = 0; j <= n; j++) {
          double tmp = aug[col][j];
          aug[col][j] = aug[piv][j];
          aug[piv][j] = tmp;
        }
        for (int r = 0; r < n; r++) {
          if (r == col) continue;
          double f = aug[r][col] / aug[col][col];
          for (int j = col; j <= n; j++) aug[r][j] -= f * aug[col][j];
        }
      }
      if (ok)
        for (int i = 0; i < n; i++) st->coef[c][i] = aug[i][n] / aug[i][i];
    }
  }
}

// ---------------------------------------------------------------------------
// The background fields (field.go): a field's L*a*b* grid for bgdist and a
// classification round's threshold, bit for bit matting.fieldGrid and
// matting.threshold(matting.fieldResiduals(...)). A field is the fitted
// model (coef, 18 doubles, when col is null) or a clean plate (col: 3
// floats per cell of a pgw×pgh grid of cell×cell pixels).

// field_at sets rgb to the field's linear light at analysis pixel (x, y)
// of a w×h image: bgModel.at (the quadratic in the pixel centre's
// coordinates scaled to [-1, 1], then math.Max(0, ·)) or plate.at (the
// bilinear interpolation between cell centres, clamped, in float32 with
// float64 coordinates: matting.bilinear3f).
__device__ static void field_at(const double *coef, const float *col, int pgw, int pgh, int cell, int w, int h,
                                int x, int y, float *rgb) {
  if (col == 0) {
    double nx = ((double)x + 0.5) / (double)w * 2.0 - 1.0;
    double ny = ((double)y + 0.5) / (double)h * 2.0 - 1.0;
    double b[FIT_TERMS] = {1.0, nx, ny, nx * nx, nx * ny, ny * ny};
    for (int c = 0; c < 3; c++) {
      double s = 0.0;
      for (int k = 0; k < FIT_TERMS; k++) s += coef[FIT_TERMS * c + k] * b[k];
      rgb[c] = (float)(s != s ? s : (s > 0.0 ? s : 0.0));
    }
    return;
  }
  double u = ((double)x + 0.5) / (double)cell - 0.5;
  double v = ((double)y + 0.5) / (double)cell - 0.5;
  double uw = (double)(pgw - 1), vh = (double)(pgh - 1);
  u = u < uw ? u : uw; // math.Max(0, math.Min(u, uw)): u is finite, never -0
  u = u > 0.0 ? u : 0.0;
  v = v < vh ? v : vh;
  v = v > 0.0 ? v : 0.0;
  int x0 = (int)u, y0 = (int)v;
  int x1 = imin(x0 + 1, pgw - 1), y1 = imin(y0 + 1, pgh - 1);
  float fx = (float)(u - (double)x0), fy = (float)(v - (double)y0);
  for (int c = 0; c < 3; c++) {
    float a = col[3 * (y0 * pgw + x0) + c] * (1.0f - fx) + col[3 * (y0 * pgw + x1) + c] * fx;
    float b = col[3 * (y1 * pgw + x0) + c] * (1.0f - fx) + col[3 * (y1 * pgw + x1) + c] * fx;
    rgb[c] = a * (1.0f - fy) + b * fy;
  }
}

// field_grid writes the field's L*a*b* at every step-th pixel (clamped to
// the last row and column) of a w×h image into the gw×gh grid
// (matting.fieldGrid).
extern "C" __global__ void field_grid(const double *coef, const float *col, int pgw, int pgh, int cell, int w, int h,
                                      int gw, int gh, int step, const float *cbrtLUT, float *grid) {
  FOR_EACH(i, (i64)gw * gh) {
    int gx = (int)(i % gw), gy = (int)(i / gw);
    float rgb[3];
    field_at(coef, col, pgw, pgh, cell, w, h, imin(gx * step, w - 1), imin(gy * step, h - 1), rgb);
    lin_to_lab(cbrtLUT, rgb[0], rgb[1], rgb[2], grid + 3 * i);
  }
}

// field_residuals sets res to the L*a*b* residual against the field of
// each pixel (step/2 + i·step, step/2 + j·step) of the subsampling grid,
// raster order (matting.fieldResiduals), +∞ for a pixel not in use (when
// use is not null), and counts those below 20 (which
// matting.threshold keeps; +∞ and NaN are not) in st->count.
extern "C" __global__ void field_residuals(const float *lab, const u8 *use, const double *coef, const float *col,
                                           int pgw, int pgh, int cell, int w, int h, int step, const float *cbrtLUT,
                                           float *res, struct fitstate *st) {
  int cols = (w - step / 2 + step - 1) / step, rows = (h - step / 2 + step - 1) / step;
  FOR_EACH(i, (i64)cols * rows) {
    int x = step / 2 + (int)(i % cols) * step, y = step / 2 + (int)(i / cols) * step;
    i64 p = (i64)y * w + x;
    if (use != 0 && !use[p]) {
      res[i] = __builtin_inff();
      continue;
    }
    float rgb[3], m[3];
    field_at(coef, col, pgw, pgh, cell, w, h, x, y, rgb);
    lin_to_lab(cbrtLUT, rgb[0], rgb[1], rgb[2], m);
    const float *o = lab + 3 * p;
    float r = (float)__builtin_sqrt((double)(sq(o[0] - m[0]) + sq(o[1] - m[1]) + sq(o[2] - m[2])));
    res[i] = r;
    if (r < 20.0f) __atomic_fetch_add(&st->count, 1, __ATOMIC_RELAXED);
  }
}

// thresh_rank (one thread) sets the rank the selection seeks: the 95th
// percentile's index among the residuals below 20, int(0.95·(count-1))
// as matting.quantile computes it. Those come first in the residuals'
// order, so it is the same rank among all of them.
extern "C" __global__ void thresh_rank(struct fitstate *st) {
  FOR_EACH(t, (i64)1) {
    st->k = st->count > 0 ? (int)(0.95 * (double)(st->count - 1)) : 0;
    st->prefix = 0;
  }
}

// thresh_final (one thread) sets the round's threshold from the selected
// percentile (0 when no residual is below 20, as matting.quantile of
// nothing): 2·p95 + 2 clamped to [6, 20] in float32 (matting.threshold).
extern "C" __global__ void thresh_final(struct fitstate *st) {
  FOR_EACH(t, (i64)1) {
    float p95 = st->count > 0 ? __builtin_bit_cast(float, st->value) : 0.0f;
    float v = 2.0f * p95 + 2.0f;
    v = v > 6.0f ? v : 6.0f; // p95 is finite: no NaN to keep
    st->t = v < 20.0f ? v : 20.0f;
  }
}
