/* gpu_defaults.c — published GPU figures (gpu_defaults.h). */
#include "scenarios/gpu_defaults.h"

double hs_gpu_memory_bandwidth_default(hs_gpu_arch arch) {
  switch (arch) {
  case HS_GPU_PASCAL: return 732e9;    /* P100 (SXM2 and PCIe 16 GB), HBM2: 732 GB/s (NVIDIA Tesla P100 datasheet) */
  case HS_GPU_VOLTA: return 900e9;     /* V100 SXM2, HBM2: 900 GB/s (NVIDIA V100 datasheet) */
  case HS_GPU_AMPERE: return 1555e9;   /* A100 SXM4 40 GB, HBM2: 1555 GB/s (NVIDIA A100 datasheet; 2039 for 80 GB) */
  case HS_GPU_HOPPER: return 3350e9;   /* H100 SXM5, HBM3: 3.35 TB/s (NVIDIA H100 datasheet) */
  case HS_GPU_BLACKWELL: return 8e12;  /* B200, HBM3e: 8 TB/s (NVIDIA DGX B200: 64 TB/s for 8 GPUs) */
  }
  return 1555e9;
}

double hs_gpu_launch_overhead_default(void) {
  /* What a launch adds on the stream beyond the kernel's work: a small MLP
   * of 8 kernels takes "about 50 us per evaluation when executed
   * normally, but only 16 us when it is launched as a graph" (CUDA.jl
   * documentation, "Performance tips"): about 4 us a launch. PyTorch's
   * eager elementwise ops on tiny tensors run at 1.1-1.3 us each
   * (pytorch/pytorch#161104), a GPU-side floor; NVIDIA gives no number. */
  return 4e-6;
}

int hs_gpu_sms_default(hs_gpu_arch arch) {
  /* The SMs enabled on each generation's SXM part, from NVIDIA's
   * architecture whitepapers: Tesla P100 56 (of GP100's 60), Tesla V100
   * 80 (of GV100's 84), A100 108 (of GA100's 128), H100 SXM5 132 (of
   * GH100's 144); B200 148 (NVIDIA Blackwell tuning guide and CUDA's
   * deviceQuery on B200: 148 multiprocessors). */
  switch (arch) {
  case HS_GPU_PASCAL: return 56;
  case HS_GPU_VOLTA: return 80;
  case HS_GPU_AMPERE: return 108;
  case HS_GPU_HOPPER: return 132;
  case HS_GPU_BLACKWELL: return 148;
  }
  return 108;
}

double hs_host_memory_bandwidth_default(hs_cpu_vendor cpu) {
  /* Two sockets, each at its memory controllers' peak: Intel Xeon E5-2698
   * v4 (DGX-1's), 4 channels of DDR4-2400, "Max Memory Bandwidth 76.8
   * GB/s" (Intel ARK); AMD EPYC 7742 (DGX A100's), 8 channels of
   * DDR4-3200, 204.8 GB/s per socket (AMD's product brief). */
  return cpu == HS_CPU_AMD ? 2 * 204.8e9 : 2 * 76.8e9;
}

double hs_host_bandwidth_default(hs_gpu_arch arch) {
  /* One x16 link of the generation the GPUs came with, as NCCL rates it
   * (src/graph/topo.cc: width x kvDictPciGen / 80, so Gen3 x16 is its
   * PCI_BW of 12 GB/s): Pascal and Volta hosts are Gen3, Ampere Gen4,
   * Hopper and Blackwell Gen5. */
  switch (arch) {
  case HS_GPU_PASCAL:
  case HS_GPU_VOLTA: return 12e9;
  case HS_GPU_AMPERE: return 24e9;
  case HS_GPU_HOPPER:
  case HS_GPU_BLACKWELL: return 48e9;
  }
  return 12e9;
}

double hs_socket_bandwidth_default(hs_cpu_vendor cpu) {
  /* NCCL's own ratings of the link between sockets, which its search plans
   * GPU traffic across sockets with (src/graph/topo.h, topo.cc): AMD_BW 16
   * GB/s; on Intel SKL_QPI_BW 10 GB/s for Skylake and Cascade Lake, the
   * hosts of the V100 and A100 era (BDW_QPI_BW 6 for Broadwell, SRP_QPI_BW
   * 22 and ERP_QPI_BW 40 for Sapphire and Emerald Rapids: a system file
   * states its own). BytePS measured the same 80 Gb/s for a copy between
   * GPUs under the two sockets' PCIe switches of a V100 PCIe server, where
   * one switch gave 105 (Jiang et al., OSDI 2020, section 4.2, as
   * transcribed in public reading notes). */
  return cpu == HS_CPU_AMD ? 16e9 : 10e9;
}
