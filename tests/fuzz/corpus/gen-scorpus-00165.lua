-- emulated-4.lua — four workers on four nodes joined by slow links
-- (1 Gbps, 200 us), training a wide softmax model (65536 features, 8
-- classes) whose 2 MiB gradient
-- makes every iteration communication-bound. The same file is
--   simulated:  hearsay run scenarios/emulated-4.lua
--   emulated:   mpirun -np 4 hearsay-real scenarios/emulated-4.lua
-- and scripts/compare puts the two side by side (docs/real.md).

cluster {
  nodes = 4, gpus_per_node = 1,
  -- Emulated runs compute for real on this machine's CPU cores, so the
  -- "GPU" here is one core's measured speed on this workload (about 1.3
  -- GFLOP/s counting the model's FLOPs): the prediction then includes the
  -- compute that the emulation really does. On a GPU cluster, put the GPU.
  gpu   = { flops = "1.3GF", efficiency = 1 },
  intra = { bandwidth = "100GBps", latency = "1us" },
  inter = { bandwidth = "1Gbps", latency = "200us", topology = "flat" },
}

workload {
  model = "softmax",
  dataset = { kind = "gaussian_mixture", classes = 8, features = 65536,
              samples = 512, test_samples = 256, separation = 16, partition = "iid" },
  batch = 1, lr = 0.001, momentum = 0.9,
}

algorithm {
  name = "decentralized",
  peers = { peers = 5 },
}

run { iterations = 100, seed = 11, eval_every = 20 }

-- hearsay-real: MPI transport, every message delayed by the links above.
real { transport = "mpi", emulate = true }
