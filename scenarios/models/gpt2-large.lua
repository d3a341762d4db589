-- gpt2-large.lua — GPT-2 large (Radford et al. 2019): 36 layers, d_model
-- 1280, 20 heads, context 1024, vocabulary 50257, LM head tied to the token
-- embedding. FLOPs per sample at sequence length `seq`
-- (workload.model_options.seq, at most the 1024 positions; default 1024). The
-- paper's Table 2 gives 762M parameters; counted in full (774,030,080) they
-- are the 774M that openai/gpt-2's README names the model by.
local options = { seq = 1024 } -- workload.model_options
local seq = (... or {}).seq or options.seq
if type(seq) ~= "number" or seq ~= math.floor(seq) or seq < 1 or seq > 1024 then
  error("model_options.seq must be a whole number in 1..1024 (its 1024 position embeddings), got " .. tostring(seq), 0)
end
local d, n_layers, vocab, ctx = 1280, 36, 50257, 1024
local layers = {}
-- tensors: as Hugging Face's GPT2LMHeadModel holds them (436 in all).
local function add(name, params, flops, tensors)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = tensors }
end
add("wte+wpe", vocab * d + ctx * d, 0, 2)
for l = 0, n_layers - 1 do
  local p = "h." .. l .. "."
  add(p .. "ln_1+attn.c_attn", 2 * d + 3 * d * d + 3 * d, 2 * 3 * d * d * seq, 4)
  add(p .. "attn.scores", 0, 2 * 2 * seq * seq * d, 0)
  add(p .. "attn.c_proj", d * d + d, 2 * d * d * seq, 2)
  add(p .. "ln_2+mlp.c_fc", 2 * d + 4 * d * d + 4 * d, 2 * 4 * d * d * seq, 4)
  add(p .. "mlp.c_proj", 4 * d * d + d, 2 * 4 * d * d * seq, 2)
end
-- Final layer norm; the LM head reuses wte (no new weights) but costs FLOPs.
add("ln_f+lm_head", 2 * d, 2 * d * vocab * seq, 2)
return { name = "gpt2-large", published_params = 774.03e6, layers = layers, options = options }
