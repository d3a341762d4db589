-- bert-base.lua — BERT (Devlin et al. 2019): encoder layers of `hidden`
-- with an FFN of `ffn`, WordPiece vocabulary 30522, 512 positions, the
-- pre-training head (MLM transform, decoder tied to the embeddings) and
-- the pooler; by default BERT-Base (12 layers of 768, FFN 3072, 12 heads;
-- published 110M), BERT-Large as a variant (bert-large.lua). FLOPs per
-- sample at sequence length `seq` (128, pre-training's first phase, by
-- default; 512 its second): 2 per weight per token, plus attention scores
-- and weighted sums (2 x 2 x seq^2 x hidden a layer); backward twice
-- forward. workload.model_options: seq, layers, hidden, ffn.
local options = { seq = 128, layers = 12, hidden = 768, ffn = 3072 }
local given = ... or {}
local function whole(name, lo, hi, why) return hearsay.option(given, options, name, lo, hi, why) end
local seq = whole("seq", 1, 512, "its 512 position embeddings")
local n_layers, hidden, ffn = whole("layers", 1, 1000), whole("hidden", 1, 100000), whole("ffn", 1, 1000000)
local vocab = 30522
local layers = {}
-- tensors: the parameter tensors as Hugging Face's BertForPreTraining holds
-- them (a Linear's weight and bias, a LayerNorm's weight and bias).
-- matrices: the layer's weights of two dimensions, (out, in) as nn.Linear
-- and nn.Embedding keep them; the rest (biases, LayerNorms) are vectors
local function add(name, params, flops, tensors, matrices)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = tensors,
                          matrices = matrices or {} }
end
-- Embedding lookups cost no multiply-adds; their layer norm is negligible.
add("embeddings", vocab * hidden + 512 * hidden + 2 * hidden + 2 * hidden, 0, 5,
    { { vocab, hidden }, { 512, hidden }, { 2, hidden } })
for l = 0, n_layers - 1 do
  local p = "encoder." .. l .. "."
  add(p .. "attention.qkv", 3 * (hidden * hidden + hidden), 2 * 3 * hidden * hidden * seq, 6,
      { { hidden, hidden }, { hidden, hidden }, { hidden, hidden } })
  add(p .. "attention.scores", 0, 2 * 2 * seq * seq * hidden, 0)
  add(p .. "attention.output", hidden * hidden + hidden + 2 * hidden, 2 * hidden * hidden * seq, 4, { { hidden, hidden } })
  add(p .. "ffn.in", hidden * ffn + ffn, 2 * hidden * ffn * seq, 2, { { ffn, hidden } })
  add(p .. "ffn.out", ffn * hidden + hidden + 2 * hidden, 2 * ffn * hidden * seq, 4, { { hidden, ffn } })
end
add("pooler", hidden * hidden + hidden, 2 * hidden * hidden, 2, { { hidden, hidden } })
-- MLM head: transform + layer norm, decoder weights tied to the embeddings
-- (only its bias is new), applied to every token.
add("mlm_head", hidden * hidden + hidden + 2 * hidden + vocab, 2 * (hidden * hidden + hidden * vocab) * seq, 5,
    { { hidden, hidden } })
return { name = "bert", layers = layers, options = options }
