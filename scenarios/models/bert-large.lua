-- bert-large.lua — BERT-Large (Devlin et al. 2019): 24 layers, hidden 1024,
-- 16 heads, FFN 4096, WordPiece vocabulary 30522, pre-training head (MLM
-- transform, decoder tied to the embeddings) and pooler. FLOPs per sample at
-- sequence length `seq` (workload.model_options.seq; 128, pre-training's
-- first phase, by default, 512 its second): 2 per weight per token, plus
-- attention scores and weighted sums (2 * 2 * seq^2 * hidden per layer).
-- Published: 340M.
local options = { seq = 128 } -- workload.model_options
local seq = (... or {}).seq or options.seq
if type(seq) ~= "number" or seq ~= math.floor(seq) or seq < 1 or seq > 512 then
  error("model_options.seq must be a whole number in 1..512 (its 512 position embeddings), got " .. tostring(seq), 0)
end
local hidden, ffn, n_layers, vocab = 1024, 4096, 24, 30522
local layers = {}
-- tensors: the parameter tensors as Hugging Face's BertForPreTraining holds
-- them (a Linear's weight and bias, a LayerNorm's weight and bias).
local function add(name, params, flops, tensors)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = tensors }
end
-- Embedding lookups cost no multiply-adds; their layer norm is negligible.
add("embeddings", vocab * hidden + 512 * hidden + 2 * hidden + 2 * hidden, 0, 5)
for l = 0, n_layers - 1 do
  local p = "encoder." .. l .. "."
  add(p .. "attention.qkv", 3 * (hidden * hidden + hidden), 2 * 3 * hidden * hidden * seq, 6)
  add(p .. "attention.scores", 0, 2 * 2 * seq * seq * hidden, 0)
  add(p .. "attention.output", hidden * hidden + hidden + 2 * hidden, 2 * hidden * hidden * seq, 4)
  add(p .. "ffn.in", hidden * ffn + ffn, 2 * hidden * ffn * seq, 2)
  add(p .. "ffn.out", ffn * hidden + hidden + 2 * hidden, 2 * ffn * hidden * seq, 4)
end
add("pooler", hidden * hidden + hidden, 2 * hidden * hidden, 2)
-- MLM head: transform + layer norm, decoder weights tied to the embeddings
-- (only its bias is new), applied to every token.
add("mlm_head", hidden * hidden + hidden + 2 * hidden + vocab, 2 * (hidden * hidden + hidden * vocab) * seq, 5)
return { name = "bert-large", published_params = 340e6, layers = layers, options = options }
