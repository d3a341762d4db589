/* gpu_defaults.h — a GPU's published figures beyond its FLOPs, by
 * generation: what memory-bound kernels (compression, optimizer steps,
 * averaging, copies) cost on it (algos/train/gpu_kernel.h). */
#ifndef HS_GPU_DEFAULTS_H
#define HS_GPU_DEFAULTS_H

#include "scenarios/scenario.h"

/* Bytes per second of the GPU's memory (HBM), its peak. */
double hs_gpu_memory_bandwidth_default(hs_gpu_arch arch);

/* Seconds a kernel launch costs on the GPU's stream beyond its work. */
double hs_gpu_launch_overhead_default(void);

/* Streaming multiprocessors of the generation's datacenter GPU: what a
 * collective's channels take a share of (one SM each) while it runs. */
int hs_gpu_sms_default(hs_gpu_arch arch);

/* A node's CPU side (cluster.host), where CPU parameter servers run: the
 * CPUs' memory bandwidth (B/s), and PCIe between the node's switch and
 * CPU memory (B/s). */
double hs_host_memory_bandwidth_default(hs_cpu_vendor cpu);
double hs_host_bandwidth_default(hs_gpu_arch arch);

/* B/s that GPU traffic between the node's two CPU sockets reaches, each
 * way (cluster.intra.socket_bandwidth). */
double hs_socket_bandwidth_default(hs_cpu_vendor cpu);

#endif
