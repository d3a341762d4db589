-- quickstart.lua — the default scenario: 64 GPUs train softmax regression on a
-- synthetic 10-class Gaussian mixture with data-parallel SGD (gradient
-- allreduce), simulated. Every key is documented in docs/scenarios.md.

cluster {
   gpus_per_node = 8,
  gpu   = { flops = "125TF", efficiency = 0.4 },          -- V100-class tensor cores
  intra = { bandwidth = "150GBps", latency = "2us" },     -- NVLink / NVSwitch
  inter = { bandwidth = "100Gbps",  (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((( latency = "5us", topology = "flat" },
}

workload {
  model = "softmax",
  dataset = { kind = "gaussian_mixture", classes = 10, features = 64,
              samples = 64000, test_samples = 2000, partition = "iid" },
  batch = 32, lr = 0.1, momentum = 0.9,
}

algorithm { name = "gradient_allreduce", bucket_size = "25MiB", overlap = true }

run { iterations = 150, seed = 7, eval_every = 25 }
