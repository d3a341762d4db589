-- random_matching: a random perfect matching per step, from the run's seed.
-- Consecutive entries of hearsay.permutation(n, step) pair up (with n odd,
-- the last one sits the step out). The permutation depends only on the seed
-- and the step, so every rank computes the same matching; it is built once
-- per step and reused for every rank.
local built_n, built_step, partner
return {
  peers = function(rank, n, step)
    if n ~= built_n or step ~= built_step then
      local perm = hearsay.permutation(n, step)
      partner = {}
      for i = 1, n - 1, 2 do
        partner[perm[i]] = perm[i + 1]
        partner[perm[i + 1]] = perm[i]
      end
      built_n, built_step = n, step
    end
    if partner[rank] == nil then return {} end
    return { partner[rank] }
  end,
}
