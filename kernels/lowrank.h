/* lowrank.h — the dense linear algebra of PowerSGD on small row-major
 * matrices: products accumulated in double, and Gram-Schmidt.
 *
 * C reference only: on a GPU these are cuBLAS calls (GEMM and a QR), not
 * kernels of ours, so there is no CUDA twin to keep in step. */
#ifndef HS_LOWRANK_H
#define HS_LOWRANK_H

#include <stddef.h>

/* C (m x n) = A (m x k) * B (k x n) */
void hs_k_mm_f32(const float *a, const float *b, float *c, size_t m, size_t k, size_t n);
/* C (m x n) = A^T * B, with A (k x m) and B (k x n) */
void hs_k_mtm_f32(const float *a, const float *b, float *c, size_t m, size_t k, size_t n);
/* C (m x n) = A * B^T, with A (m x k) and B (n x k) */
void hs_k_mmt_f32(const float *a, const float *b, float *c, size_t m, size_t k, size_t n);
/* Makes the r columns of P (rows x r) orthonormal, in order (modified
 * Gram-Schmidt); a column that vanishes is left at zero. */
void hs_k_orthonormalize_f32(float *p, size_t rows, size_t r);

#endif
