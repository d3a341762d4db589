-- hearsay-args: --set run.iterations=3 --set .=.
-- peers-hypercube.lua — the tutorial's scheme (docs/peer-selection.md): a
-- peer-selection rule written as a Lua function in the scenario. At step t
-- rank r pairs with r xor 2^(t mod log2 n): the edges of one dimension of a
-- hypercube per step, so for n a power of 2 the replicas hold the exact
-- average after log2 n steps, with one message per rank per step.
cluster   { nodes = 8, gpus_per_node = 8, gpu = { flops = "100TF" },
            inter = { bandwidth = "100Gbps" } }
workload  { model = "softmax", batch = 32, init_noise = 0.1,
            dataset = { classes = 10, features = 64, samples = 65536 } }
run       { iterations = 150, seed = 1 }

algorithm {
  name = "decentralized",
  peers = function(rank, n, step)
    local dims = hearsay.log2(n)
    return { rank ~ (1 << (step % dims)) }
  end,
}
