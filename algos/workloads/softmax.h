/* softmax.h — softmax regression, the numeric workload's model.
 *
 * Parameters, flat: W (classes x features, row-major) then b (classes). The
 * loss is the mean cross-entropy over the batch; the gradient is its exact
 * derivative, accumulated in double precision. */
#ifndef HS_SOFTMAX_H
#define HS_SOFTMAX_H

#include "algos/workloads/dataset.h"

/* grad = d(mean loss)/d(params) over the samples idx[0..n); returns the loss. */
double hs_softmax_grad(const float *params, const hs_dataset *d, const long *idx, int n, float *grad);
/* Mean loss and accuracy of params on the held-out set. */
void hs_softmax_eval(const float *params, const hs_dataset *d, double *loss, double *accuracy);

#endif
