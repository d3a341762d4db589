-- hearsay-args: --set sim.network_model=Constant
-- SimGrid's Constant network model has no links and aborted on the first
-- of hearsay's platform (exit 70): refused, FILE:LINE or the --set, key
-- (scripts/fuzz, seed 3333, case 108)
cluster {
  nodes = 2, gpus_per_node = 2,
  gpu = { flops = "10TF" },
  inter = { bandwidth = "10Gbps", latency = "5us" },
}
workload { model = "softmax", dataset = { samples = 400, test_samples = 100 }, batch = 8 }
algorithm { name = "gradient_allreduce" }
run { iterations = 3 }
