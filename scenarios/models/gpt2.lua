-- gpt2.lua — GPT-2 (Radford et al. 2019): pre-norm decoder layers of
-- d_model with an MLP of 4 x d_model, context 1024, vocabulary 50257, the
-- LM head tied to the token embedding; by default GPT-2 small (12 layers of
-- 768), and the other sizes as variants of it (gpt2-medium, gpt2-large,
-- gpt2-xl: workload.model_options `layers` and `d_model`). FLOPs per sample
-- at sequence length `seq` (at most the 1024 positions; default 1024): 2
-- per weight per token, plus attention scores and weighted sums (2 x 2 x
-- seq^2 x d_model a layer); backward twice forward. The paper's Table 2
-- gives 117M parameters for the small one; counted in full (124,439,808)
-- they are the 124M that openai/gpt-2's README names it by.
local options = { seq = 1024, layers = 12, d_model = 768 } -- workload.model_options
local given = ... or {}
local function whole(name, lo, hi) return hearsay.option(given, options, name, lo, hi) end
local seq, n_layers, d = whole("seq", 1, 1024), whole("layers", 1, 1000), whole("d_model", 1, 100000)
local vocab, ctx = 50257, 1024
local layers = {}
-- tensors: as Hugging Face's GPT2LMHeadModel holds them (2 + 12 a layer + 2).
-- matrices: the layer's weights of two dimensions as they are kept
-- (transformers' Conv1D: (in, out); nn.Embedding: (rows, d)); the rest
-- (biases, LayerNorms) are vectors
local function add(name, params, flops, tensors, matrices)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = tensors,
                          matrices = matrices or {} }
end
add("wte+wpe", vocab * d + ctx * d, 0, 2, { { vocab, d }, { ctx, d } })
for l = 0, n_layers - 1 do
  local p = "h." .. l .. "."
  add(p .. "ln_1+attn.c_attn", 2 * d + 3 * d * d + 3 * d, 2 * 3 * d * d * seq, 4, { { d, 3 * d } })
  add(p .. "attn.scores", 0, 2 * 2 * seq * seq * d, 0)
  add(p .. "attn.c_proj", d * d + d, 2 * d * d * seq, 2, { { d, d } })
  add(p .. "ln_2+mlp.c_fc", 2 * d + 4 * d * d + 4 * d, 2 * 4 * d * d * seq, 4, { { d, 4 * d } })
  add(p .. "mlp.c_proj", 4 * d * d + d, 2 * 4 * d * d * seq, 2, { { 4 * d, d } })
end
-- Final layer norm; the LM head reuses wte (no new weights) but costs FLOPs.
add("ln_f+lm_head", 2 * d, 2 * d * vocab * seq, 2)
return { name = "gpt2", layers = layers, options = options }
