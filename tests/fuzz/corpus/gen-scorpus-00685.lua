-- hearsay-args: --set run.iterations=3
-- decentralized-64.lua — the quickstart's 64 GPUs and data, trained with
-- decentralized SGD: each GPU averages its weights with one peer per step
-- (Bagua's shift_one), overlapped with compute. metrics.csv's consensus
-- column shows how far the replicas drift apart. Try:
--   hearsay run scenarios/decentralized-64.lua --set algorithm.peers=ring
--   hearsay run scenarios/decentralized-64.lua --set algorithm.hierarchical=true
--   hearsay run scenarios/decentralized-64.lua --set workload.dataset.partition=dirichlet
-- docs/algorithms.md lists every algorithm and its options.

cluster {
  nodes = 8, gpus_per_node = 8,
  gpu   = { flops = "125TF", efficiency = 0.4 },
  intra = { bandwidth = "150GBps", latency = "2us" },
  inter = { bandwidth = "100Gbps", latency = "5us", topology = "flat" },
}

workload {
  model = "softmax",
  dataset = { kind = "gaussian_mixture", classes = 10, features = 64,
              samples = 64000, test_samples = 2000, partition = "iid" },
  batch = 32, lr = 0.1, momentum = 0.9,
}

algorithm {
  name = "decentralized",
  peers = hearsay.metropolis(function() while true do end end),
}

run { iterations = 150, seed = 7, eval_every = 25 }
